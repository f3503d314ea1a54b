// Looks up repository labels by name, a fixed number of names per request.

/** Names per request; unused slots repeat the first name so the document never changes. */
export const RESOLVE_LABEL_SLOTS = 4;

export const RESOLVE_LABELS_QUERY = /* GraphQL */ `
  query ResolveLabels($owner: String!, $name: String!, $label0: String!, $label1: String!, $label2: String!, $label3: String!) {
    repository(owner: $owner, name: $name) {
      label0: label(name: $label0) {
        id
        name
      }
      label1: label(name: $label1) {
        id
        name
      }
      label2: label(name: $label2) {
        id
        name
      }
      label3: label(name: $label3) {
        id
        name
      }
    }
  }
`;

export type ResolveLabelsResponse = {
  repository: Record<`label${0 | 1 | 2 | 3}`, { id: string; name: string } | null> | null;
};

/** The variables for one request of up to `RESOLVE_LABEL_SLOTS` names. */
export function resolveLabelsVariables(
  owner: string,
  name: string,
  labels: string[],
): Record<string, string> {
  if (labels.length === 0 || labels.length > RESOLVE_LABEL_SLOTS) {
    throw new RangeError(`resolveLabelsVariables takes 1 to ${RESOLVE_LABEL_SLOTS} names`);
  }
  const variables: Record<string, string> = { owner, name };
  for (let slot = 0; slot < RESOLVE_LABEL_SLOTS; slot++)
    variables[`label${slot}`] = labels[slot] ?? labels[0]!;
  return variables;
}
