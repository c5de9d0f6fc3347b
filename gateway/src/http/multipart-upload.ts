import type { FastifyRequest } from "fastify";
import { GatewayError } from "../errors";

/** A multipart upload as read: its text fields and its one file part, named `file`. */
export interface Upload {
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: Buffer };
}

/** Reads a multipart/form-data request of text fields and one `file` part; 400 for anything else. */
export async function readUpload(request: FastifyRequest, what: string): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new GatewayError("invalid_json", `Send the ${what} as multipart/form-data with a \`file\` part and a \`model\` field.`, { param: "Content-Type" });
  }
  const fields: Record<string, string> = {};
  let file: Upload["file"] | undefined;
  for await (const part of request.parts()) {
    if (part.type === "file") {
      if (part.fieldname !== "file") throw new GatewayError("validation_failed", `Invalid fields: ${part.fieldname}: only one file part, named "file", is read.`, { param: part.fieldname });
      file = { bytes: await part.toBuffer(), name: part.filename || "audio", type: part.mimetype || "application/octet-stream" };
    } else if (typeof part.value === "string") {
      fields[part.fieldname] = part.value;
    }
  }
  if (!file) throw new GatewayError("validation_failed", `Invalid fields: file: the ${what} file is required.`, { param: "file" });
  return { fields, file };
}
