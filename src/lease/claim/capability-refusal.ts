// A direct claim's capability check (`409 missing_capability`: docs/reference/http-api.md#capabilities): made only when the caller declared its capabilities.
import { directClaimMissing } from "../../domain/capabilities.js";
import { subjectName } from "../../domain/claim.js";
import type { SubjectSnapshot } from "../../providers/assignment-provider.js";
import type { Refusal } from "../refusals.js";

/** The refusal of a claim whose declared capabilities miss one the labels need; null: claim it. */
export function capabilityRefusal(input: {
  declared: readonly string[] | undefined;
  snapshot: Pick<SubjectSnapshot, "repo" | "issue" | "labels">;
  prefix: string;
}): Refusal | null {
  const { snapshot, prefix } = input;
  const missing = directClaimMissing({ labels: snapshot.labels, prefix, declared: input.declared });
  if (missing.length === 0) return null;
  return {
    code: "missing_capability",
    message: `${subjectName(snapshot.repo, snapshot.issue)} needs ${missing.join(", ")}, which this session did not declare; claim it without "capabilities" to take it anyway.`,
    details: { missing },
  };
}
