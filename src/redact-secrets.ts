// Strips anything token-shaped from text that may end up in an error message or a log line.

const tokenShapes = [
  /\bgh[pousr]_[A-Za-z0-9_]{8,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{8,}/g,
  /\bclh_[A-Za-z0-9_-]{8,}/g,
  /\bv1\.[0-9a-f]{40}\b/g,
  /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
];
const authorizationValue = /\b(authorization["']?\s*[:=]\s*["']?)(?:(?:token|bearer)\s+)?[^\s"',})\]]+/gi;

/** Messages from GitHub do not carry tokens today; this keeps it so if one ever echoes a header back. */
export function redactSecrets(text: string): string {
  let out = text.replace(authorizationValue, "$1[REDACTED]");
  for (const shape of tokenShapes) out = out.replace(shape, "[REDACTED]");
  return out;
}
