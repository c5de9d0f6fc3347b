// Model-gateway API keys as code: create, change, rotate and revoke keys of a gateway-keys gateway, its teams and its webhook endpoints.
package gatewaykeys
