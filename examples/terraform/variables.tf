variable "key_name" {
  description = "Name of the search team's key."
  type        = string
  default     = "search-production"
}

variable "monthly_budget" {
  description = "Credits the search key may spend per calendar month (UTC)."
  type        = string
  default     = "500"
}

variable "rotation_trigger" {
  description = "Change it (a date, a counter) to rotate the search key's secret at the next apply."
  type        = string
  default     = "1"
}

variable "contractor_until" {
  description = "When the contractor's key stops working (RFC 3339)."
  type        = string
  default     = "2099-03-31T23:59:59Z"
}
