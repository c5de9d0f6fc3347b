import { z } from "zod";
import { KeyId } from "./api-key";
import { ModelName } from "./model-api/text";

/** The query of a route that takes no query parameters: any parameter is an error, never ignored. */
export const NoQuery = z.strictObject({});
export type NoQuery = z.infer<typeof NoQuery>;

/** The path parameters of `/v1/account/api-keys/{keyId}` and its rotate and revoke paths. */
export const KeyPathParams = z.strictObject({ keyId: KeyId });
export type KeyPathParams = z.infer<typeof KeyPathParams>;

/** The path parameter of `GET /v1/models/{model}` (an id with `/` in it arrives percent-encoded, as the official clients send it). */
export const ModelPathParams = z.strictObject({ model: ModelName });
export type ModelPathParams = z.infer<typeof ModelPathParams>;
