import type { FastifyInstance } from "fastify";
import { formatPath } from "@gateway-keys/contract";
import { GatewayError } from "../errors";

/**
 * Whether a field could reach an object's prototype once the body is merged into another object:
 * `__proto__`, or `constructor` holding a `prototype` (the two forms prototype pollution takes).
 */
function reachesPrototype(name: string, value: unknown): boolean {
  if (name === "__proto__") return true;
  return name === "constructor" && value !== null && typeof value === "object" && Object.hasOwn(value, "prototype");
}

/** The path of the first forbidden field name in a parsed body, or undefined. */
function forbiddenFieldPath(value: unknown, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (value === null || typeof value !== "object") return undefined;
  for (const [name, child] of Object.entries(value)) {
    const childPath = [...path, Array.isArray(value) ? Number(name) : name];
    if (!Array.isArray(value) && reachesPrototype(name, child)) return childPath;
    const found = forbiddenFieldPath(child, childPath);
    if (found) return found;
  }
  return undefined;
}

/**
 * Parses JSON bodies. `JSON.parse` makes a `__proto__` field an ordinary own property (it never
 * sets a prototype), so the body is parsed plainly and then refused, naming the field, if it
 * carries a name that could reach a prototype later: a clear `validation_failed` instead of a
 * parser error, and no route ever sees such a field.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, text, done) => {
    const body = typeof text === "string" ? text : text.toString("utf8");
    if (body.trim() === "") {
      done(new GatewayError("invalid_json", "The request body is empty; send one JSON object."), undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      // V8's message quotes the body, which may hold a secret: ours does not.
      done(new GatewayError("invalid_json", "The request body is not valid JSON; send one JSON object."), undefined);
      return;
    }
    // A cheap test first: almost no body mentions these names at all.
    const path = /__proto__|prototype/.test(body) ? forbiddenFieldPath(parsed) : undefined;
    if (path) {
      const param = formatPath(path);
      done(new GatewayError("validation_failed", `Invalid fields: ${param}: this field name is not allowed.`, { param }), undefined);
      return;
    }
    done(null, parsed);
  });
}
