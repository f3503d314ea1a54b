/** @jsxImportSource hono/jsx */
// The "needs you" panel at the top of the dashboard: what waits for a person (a holder's ask, a stalled claim's, a budget, an unknown or conflicted claim, a halted janitor).
import type { FC } from "hono/jsx";
import { subjectAddressOf } from "../domain/subject-address.js";
import { ActionButton } from "./action-forms.js";
import { subjectPageUrl } from "./github-links.js";
import type { FleetView } from "./read-fleet.js";

export type AttentionKind = "needs-human" | "over-budget" | "unknown" | "conflicted" | "janitor-halted";

export interface AttentionItem {
  kind: AttentionKind;
  /** `owner/repo#n`; null for the janitor. */
  subject: string | null;
  repo: string | null;
  issue: number | null;
  title: string | null;
  /** The claim's generation (what an action on the item is fenced by); null when no claim is shown. */
  generation: number | null;
  /** One sentence: why a person is needed. */
  why: string;
  /** The subject's installation record (its page and actions name another forge's); null for the janitor. */
  installationId: number | null;
}

/** Items listed; the rest are counted (the claims below must stay on a phone's first screen). */
export const attentionShown = 6;

const order: readonly AttentionKind[] = [
  "janitor-halted",
  "needs-human",
  "over-budget",
  "conflicted",
  "unknown",
];

/** What needs a person, most urgent kind first; a subject appears once per kind. Pure. */
export function attentionItems(
  view: Pick<FleetView, "claims" | "overBudget" | "janitor">,
  nameOf: (installationId: number) => string = (id) => `installation ${id}`,
): AttentionItem[] {
  const items: AttentionItem[] = [];
  const seen = new Set<string>();
  const add = (item: AttentionItem) => {
    const id = `${item.kind}:${item.subject ?? ""}`;
    if (seen.has(id)) return;
    seen.add(id);
    items.push(item);
  };
  const report = view.janitor;
  if (report?.halted)
    add({
      kind: "janitor-halted",
      subject: null,
      repo: null,
      issue: null,
      title: null,
      generation: null,
      installationId: null,
      why: `The janitor halted (disruption guard) for ${report.haltedInstallations.map(nameOf).join(", ")}.`,
    });
  for (const claim of view.claims) {
    const about = {
      subject: claim.subject,
      repo: claim.repo,
      issue: claim.issue,
      title: claim.title,
      generation: claim.generation,
      installationId: claim.installationId,
    };
    if (claim.reasons.includes("needs-human"))
      add({
        kind: "needs-human",
        ...about,
        why:
          claim.state === "stalled"
            ? `@${claim.holder.login} heartbeats without progress (stalled): is it stuck?`
            : claim.blocker
              ? `@${claim.holder.login} asks: ${claim.blocker}`
              : `@${claim.holder.login} asks for a person.`,
      });
    if (claim.reasons.includes("over-budget"))
      add({ kind: "over-budget", ...about, why: "Over its budget label." });
    if (claim.state === "conflicted")
      add({ kind: "conflicted", ...about, why: `Conflicted: ${claim.reasons.join(", ")}.` });
    if (claim.state === "unknown")
      add({ kind: "unknown", ...about, why: "Claim state unknown (the store lost data since the claim)." });
  }
  for (const ended of view.overBudget)
    add({
      kind: "over-budget",
      subject: ended.subject,
      repo: ended.repo,
      issue: ended.issue,
      title: ended.title,
      generation: null,
      installationId: ended.installationId,
      why: "The lease ended at its budget; raise the budget or release the issue.",
    });
  return items.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}

const kindLabels: Record<AttentionKind, string> = {
  "janitor-halted": "janitor halted",
  "needs-human": "needs a person",
  "over-budget": "over budget",
  conflicted: "conflicted",
  unknown: "state unknown",
};

/** With the action forms' token, a holder's ask carries its "clear needs-human" button. */
export const NeedsYou: FC<{ items: readonly AttentionItem[]; token?: string | undefined }> = ({
  items,
  token,
}) => (
  <section id="needs-you" class={items.length > 0 ? "needs-you" : "needs-you calm"}>
    <h2>Needs you{items.length > 0 ? ` (${items.length})` : ""}</h2>
    {items.length === 0 ? (
      <p class="muted">Nothing waits for a person.</p>
    ) : (
      <ul>
        {items.slice(0, attentionShown).map((item) => (
          <li data-attention={item.kind} data-subject={item.subject ?? undefined}>
            <span class="attention-kind">{kindLabels[item.kind]}</span>{" "}
            {item.repo !== null && item.issue !== null ? (
              <a href={subjectPageUrl(item.repo, item.issue, item.installationId ?? undefined)}>
                <b>{item.subject}</b>
              </a>
            ) : item.subject ? (
              <b>{item.subject}</b>
            ) : null}
            {item.title ? <span class="muted title"> {item.title}</span> : null}
            <div>{item.why}</div>
            {token && item.kind === "needs-human" && item.repo !== null && item.issue !== null ? (
              <ActionButton
                token={token}
                action="clear-needs-human"
                target={{
                  ...(item.installationId !== null
                    ? subjectAddressOf(item.installationId, item.repo, item.issue)
                    : { repo: item.repo, issue: item.issue }),
                  ...(item.generation !== null ? { generation: item.generation } : {}),
                }}
              />
            ) : null}
          </li>
        ))}
        {items.length > attentionShown ? (
          <li class="muted">and {items.length - attentionShown} more (filter the claims by state)</li>
        ) : null}
      </ul>
    )}
  </section>
);
