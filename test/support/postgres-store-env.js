/** Setup file of the `postgres` jest project: test gateways of its files use PostgreSQL (testkit/src/test-gateway.ts). */
process.env.GATEWAY_TEST_STORE = "postgres";
