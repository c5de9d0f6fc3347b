/**
 * The floor proxy (floor-proxy.ts) as a process of its own, so its resident memory is its own:
 * `node floor-proxy-process.ts <upstream URL>` prints the proxy's URL on its first line and serves
 * until killed. Connections to the upstream are not pooled down: each open stream holds one, as in
 * the gateway.
 */
import { startFloorProxy } from "./floor-proxy.ts";

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error("usage: node floor-proxy-process.ts <upstream URL>");
const { url } = await startFloorProxy(upstreamUrl, 65_536);
process.stdout.write(`${url}\n`);
