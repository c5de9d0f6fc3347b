import type { AnswerPart, ToolCallPart } from "./text";

/** An answer's parts: its text (kept, even empty, unless the answer is only tool calls), then its calls. */
export function completionParts(text: string, calls: ToolCallPart[]): AnswerPart[] {
  // A call whose input is empty has `{}` for arguments, as the wires that parse them expect.
  const called = calls.map((call) => (call.arguments === "" ? { ...call, arguments: "{}" } : call));
  return text === "" && called.length > 0 ? called : [{ type: "text", text }, ...called];
}
