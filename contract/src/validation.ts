import type { z } from "zod";

/** One validation problem: the dotted path of the field and what is allowed there. */
export interface FieldIssue {
  /** Dotted path, e.g. `spendPolicy.limitUnits`, or `(body)` for the whole object. */
  path: string;
  message: string;
}

/** Turns zod's issues into field issues whose paths read like the JSON the user wrote. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.code === "unrecognized_keys" ? `unknown field(s) ${issue.keys.join(", ")}` : issue.message,
  }));
}

/** `a.b[2].c` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(body)";
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`))
    .join("");
}

/** One line naming every issue: `spendPolicy.limitUnits: must be greater than 0; name: must not be empty`. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
}
