import type { z } from "zod";

/** One validation problem: the dotted path of the field and what is allowed there. */
export interface FieldIssue {
  /** Dotted path, e.g. `spendPolicy.limitUnits`, or `(body)` for the whole object. */
  path: string;
  message: string;
}

/**
 * zod's issues, with a union's failure replaced by the issues of the one option whose type the
 * value had (a string-or-array field given an array reports what is wrong inside the array, at
 * its path, rather than "expected a string or an array").
 */
export function specificIssues(error: z.ZodError): z.core.$ZodIssue[] {
  const unwrap = (issue: z.core.$ZodIssue): z.core.$ZodIssue[] => {
    if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
    const typed = issue.errors.filter((branch) => !(branch.length === 1 && branch[0]!.code === "invalid_type" && branch[0]!.path.length === 0));
    if (typed.length !== 1) return [issue];
    return typed[0]!.flatMap((inner) => unwrap({ ...inner, path: [...issue.path, ...inner.path] }));
  };
  return error.issues.flatMap(unwrap);
}

/** Turns zod's issues into field issues whose paths read like the JSON the user wrote. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return specificIssues(error).map((issue) => ({
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
