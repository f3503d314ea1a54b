// The client address the failed-auth limiter counts: the socket's, or the one a trusted proxy forwarded.

/** Longer entries are not addresses; they are cut so a header cannot make the limiter's keys large. */
const maxAddressLength = 64;

/**
 * With `trustedHops` proxies in front of the App (`CLAIM_HOLD_TRUST_PROXY`), the client is the
 * address the outermost trusted proxy saw: `trustedHops` entries from the right of
 * `X-Forwarded-For`, counting the socket as the first hop. Entries further left were sent by the
 * client and are never trusted; with fewer entries than hops, the leftmost one is used. With 0 hops
 * (the default) the header is ignored.
 */
export function clientAddressOf(input: {
  socketAddress: string;
  forwardedFor: string | undefined;
  trustedHops: number;
}): string {
  const { socketAddress, forwardedFor, trustedHops } = input;
  if (trustedHops <= 0 || !forwardedFor) return socketAddress;
  const chain = [
    ...forwardedFor
      .split(",")
      .map((entry) => entry.trim().slice(0, maxAddressLength))
      .filter((entry) => entry !== ""),
    socketAddress,
  ];
  return chain[Math.max(0, chain.length - 1 - trustedHops)]!;
}
