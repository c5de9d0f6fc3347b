import * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineProto from "@pulumi/pulumi/proto/engine_pb";
import type { Diagnostics } from "../runtime/diagnostics";

/** What the native plugin tells the person running Pulumi: warnings, and notes such as an import's declaration. */
export interface NativeDiagnostics extends Diagnostics {
  info(message: string, urn?: string): void;
}

/**
 * Messages through the engine's log service at `engineAddress`, shown under the resource like any
 * provider's. Imported statically (unlike the dynamic provider's, which borrows the program's
 * `@pulumi/pulumi`), so the bundled plugin carries everything it needs. Failing to deliver a
 * message never fails an operation.
 */
export function engineLog(engineAddress: string | undefined): NativeDiagnostics {
  let client: EngineClient | undefined;
  const send = (severity: engineProto.LogSeverity, message: string, urn?: string): Promise<void> | undefined => {
    if (!engineAddress) return;
    try {
      client ??= new EngineClient(engineAddress, grpc.credentials.createInsecure());
      const request = new engineProto.LogRequest();
      request.setSeverity(severity);
      request.setMessage(message);
      request.setUrn(urn ?? "");
      const engine = client;
      return new Promise<void>((delivered) => engine.log(request, () => delivered()));
    } catch {
      // A message that cannot be delivered is not worth failing the deployment for.
    }
  };
  return {
    warn: (message, urn) => send(engineProto.LogSeverity.WARNING, message, urn),
    info: (message, urn) => send(engineProto.LogSeverity.INFO, message, urn),
  };
}
