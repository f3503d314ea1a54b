// How the agent side names a holder in a sentence: `login (runtime session id)`.

export function actorName(
  actor: { login?: string; runtime?: string | null; sessionId?: string | null } | null | undefined,
): string {
  if (!actor) return "the holder";
  const who = [actor.runtime, actor.sessionId ? `session ${actor.sessionId}` : undefined]
    .filter(Boolean)
    .join(" ");
  return actor.login ? `${actor.login}${who ? ` (${who})` : ""}` : who || "the holder";
}
