import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Addresses a webhook may not reach unless the operator allows private targets: loopback,
 * unspecified, private (RFC 1918, ULA), shared (CGNAT), link-local (cloud metadata lives there),
 * multicast and reserved ranges — so an account cannot make the gateway probe its own network.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) PRIVATE.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) PRIVATE.addSubnet(network, prefix, "ipv6");

/** Whether `address` (IPv4 or IPv6, IPv4-mapped included) is one a webhook may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Refused target: the message names the host and address, never a secret. */
export class RefusedTargetError extends Error {
  readonly code = "WEBHOOK_TARGET_REFUSED";
}

/**
 * A `lookup` for the HTTP client's connections that refuses private addresses: checked on the
 * address actually connected to, so a name that resolves to a public address when checked and a
 * private one when connecting (DNS rebinding) is refused too.
 */
export function guardedLookup(allowPrivate: boolean): typeof dnsLookup {
  return ((hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused) return callback(new RefusedTargetError(`${hostname} resolves to ${refused.address}, a private or local address`), []);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as typeof dnsLookup;
}

/** Checks a URL whose host is an address literal (no lookup happens for those). */
export function assertTargetAllowed(url: URL, allowPrivate: boolean): void {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    throw new RefusedTargetError(`${host} is a private or local address`);
  }
}
