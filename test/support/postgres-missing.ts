/** Setup file of the `postgres` jest project on a machine without PostgreSQL: its tests are skipped, counted, with the reason. */
import { missing, skipEveryTest } from "./needs";

skipEveryTest("postgres", missing("postgres") ?? "PostgreSQL was missing when jest read its configuration", "postgres");
