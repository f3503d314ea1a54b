// Capability routing (docs/reference/http-api.md#capabilities): an issue labelled `<prefix><capability>` goes only to a caller that declares the capability.

/** The capabilities an issue needs: its labels that start with `prefix`, without it, lower-cased (GitHub's label names are case-insensitive). */
export function neededCapabilities(labels: readonly string[], prefix: string): string[] {
  const lowerPrefix = prefix.toLowerCase();
  const needed = new Set<string>();
  for (const label of labels) {
    const lower = label.toLowerCase();
    if (lower.startsWith(lowerPrefix) && lower.length > lowerPrefix.length) {
      needed.add(lower.slice(lowerPrefix.length));
    }
  }
  return [...needed].sort();
}

/** The capabilities the issue needs that the caller did not declare (sorted; empty: the caller may take it). */
export function missingCapabilities(input: {
  labels: readonly string[];
  prefix: string;
  declared: readonly string[];
}): string[] {
  const declared = new Set(input.declared.map((c) => c.toLowerCase()));
  return neededCapabilities(input.labels, input.prefix).filter((c) => !declared.has(c));
}

/**
 * Whether a direct claim checks capabilities: only when the caller declared some (`capabilities`
 * sent, even empty). A claim of a named issue without them is a deliberate choice and goes ahead.
 */
export function directClaimMissing(input: {
  labels: readonly string[];
  prefix: string;
  declared: readonly string[] | undefined;
}): string[] {
  if (input.declared === undefined) return [];
  return missingCapabilities({ labels: input.labels, prefix: input.prefix, declared: input.declared });
}
