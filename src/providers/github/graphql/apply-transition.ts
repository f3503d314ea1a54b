// The one mutation of a transition, assembled from fixed, pre-written fields and sent with variables.

/** Bounds on the comment fields one document may carry; `allTransitionShapes` enumerates up to them. */
export const MAX_EDITED_COMMENTS = 4;
export const MAX_ADDED_COMMENTS = 4;

interface MutationField {
  /** The variable declaration, e.g. `$assign: AddAssigneesToAssignableInput!`. */
  declaration: string;
  selection: string;
}

function mutationField(alias: string, mutation: string, inputType: string, selection: string): MutationField {
  return {
    declaration: `$${alias}: ${inputType}!`,
    selection: `${alias}: ${mutation}(input: $${alias}) { ${selection} }`,
  };
}

/** Every field a transition document can hold. Only these strings ever enter a document: user text travels in variables. */
const fields = {
  unassign: mutationField(
    "unassign",
    "removeAssigneesFromAssignable",
    "RemoveAssigneesFromAssignableInput",
    "clientMutationId",
  ),
  removeLabels: mutationField(
    "removeLabels",
    "removeLabelsFromLabelable",
    "RemoveLabelsFromLabelableInput",
    "clientMutationId",
  ),
  assign: mutationField(
    "assign",
    "addAssigneesToAssignable",
    "AddAssigneesToAssignableInput",
    "clientMutationId",
  ),
  addLabels: mutationField(
    "addLabels",
    "addLabelsToLabelable",
    "AddLabelsToLabelableInput",
    "clientMutationId",
  ),
  edits: Array.from({ length: MAX_EDITED_COMMENTS }, (_, i) =>
    mutationField(`edit${i}`, "updateIssueComment", "UpdateIssueCommentInput", "clientMutationId"),
  ),
  claimComment: mutationField(
    "claimComment",
    "addComment",
    "AddCommentInput",
    "commentEdge { node { id databaseId } }",
  ),
  comments: Array.from({ length: MAX_ADDED_COMMENTS }, (_, i) =>
    // The node id comes back so a later write may edit the note (a repeated needs-human ask).
    mutationField(`comment${i}`, "addComment", "AddCommentInput", "commentEdge { node { id } }"),
  ),
};

/** Which fields a document holds; two transitions of the same shape send the same document. */
export interface TransitionShape {
  unassign: boolean;
  removeLabels: boolean;
  assign: boolean;
  addLabels: boolean;
  edits: number;
  claimComment: boolean;
  comments: number;
}

/** The fields of a shape, in the order they run. */
function chosenFields(shape: TransitionShape): MutationField[] {
  if (shape.edits > MAX_EDITED_COMMENTS || shape.comments > MAX_ADDED_COMMENTS) {
    throw new RangeError(
      `a transition edits at most ${MAX_EDITED_COMMENTS} and adds at most ${MAX_ADDED_COMMENTS} comments`,
    );
  }
  const chosen: MutationField[] = [
    ...(shape.unassign ? [fields.unassign] : []),
    ...(shape.removeLabels ? [fields.removeLabels] : []),
    ...(shape.assign ? [fields.assign] : []),
    ...(shape.addLabels ? [fields.addLabels] : []),
    ...fields.edits.slice(0, shape.edits),
    ...(shape.claimComment ? [fields.claimComment] : []),
    ...fields.comments.slice(0, shape.comments),
  ];
  if (chosen.length === 0) throw new RangeError("a transition document needs at least one field");
  return chosen;
}

function operation(chosen: MutationField[]): string {
  const declarations = chosen.map((f) => f.declaration).join(", ");
  const selections = chosen.map((f) => `  ${f.selection}`).join("\n");
  return `mutation ApplyTransition(${declarations}) {\n${selections}\n}\n`;
}

/**
 * The document for a shape. Top-level mutation fields run one after another in document order, so
 * removals come before additions, and the old claim comment is edited before the new one is posted
 * and before the audit notes.
 */
export function transitionDocument(shape: TransitionShape): string {
  return operation(chosenFields(shape));
}

/** The prefix of the `index`th subject's aliases and variables in a batched document. */
export function batchPrefix(index: number): string {
  return `s${index}_`;
}

/**
 * One document for several transitions (of different subjects): each subject's fields, aliases and
 * variables carry its prefix (`s0_assign`, `s1_assign`, …), the subjects one after another in order.
 * Only pre-written field strings enter it, as for one transition.
 */
export function batchedTransitionDocument(shapes: TransitionShape[]): string {
  return operation(
    shapes.flatMap((shape, index) =>
      chosenFields(shape).map((field) => prefixedField(field, batchPrefix(index))),
    ),
  );
}

function prefixedField(field: MutationField, prefix: string): MutationField {
  return {
    declaration: `$${prefix}${field.declaration.slice(1)}`,
    selection: `${prefix}${field.selection.replace("(input: $", `(input: $${prefix}`)}`,
  };
}

/** The shape a mutation's variables stand for (each field has its one variable). */
export function shapeOfVariables(variables: Record<string, unknown>): TransitionShape {
  const names = Object.keys(variables);
  return {
    unassign: "unassign" in variables,
    removeLabels: "removeLabels" in variables,
    assign: "assign" in variables,
    addLabels: "addLabels" in variables,
    edits: names.filter((n) => /^edit\d+$/.test(n)).length,
    claimComment: "claimComment" in variables,
    comments: names.filter((n) => /^comment\d+$/.test(n)).length,
  };
}

/** Several transitions as one request: the batched document and every subject's variables, prefixed. */
export function batchTransitionMutations(mutations: TransitionMutation[]): TransitionMutation {
  const variables: Record<string, unknown> = {};
  mutations.forEach((mutation, index) => {
    for (const [name, value] of Object.entries(mutation.variables)) {
      variables[`${batchPrefix(index)}${name}`] = value;
    }
  });
  return {
    document: batchedTransitionDocument(mutations.map((m) => shapeOfVariables(m.variables))),
    variables,
  };
}

/** A transition's writes with every name already resolved to a node id. */
export interface TransitionInputs {
  subjectNodeId: string;
  assigneeIds: string[];
  unassigneeIds: string[];
  addLabelIds: string[];
  removeLabelIds: string[];
  editComments: { nodeId: string; body: string }[];
  claimComment?: string;
  addComments: string[];
}

export interface TransitionMutation {
  document: string;
  variables: Record<string, unknown>;
}

/** The document and variables for the inputs, or null when there is nothing to write. */
export function buildTransitionMutation(inputs: TransitionInputs): TransitionMutation | null {
  const subject = inputs.subjectNodeId;
  const shape: TransitionShape = {
    unassign: inputs.unassigneeIds.length > 0,
    removeLabels: inputs.removeLabelIds.length > 0,
    assign: inputs.assigneeIds.length > 0,
    addLabels: inputs.addLabelIds.length > 0,
    edits: inputs.editComments.length,
    claimComment: inputs.claimComment !== undefined,
    comments: inputs.addComments.length,
  };
  const variables: Record<string, unknown> = {};
  if (shape.unassign) variables.unassign = { assignableId: subject, assigneeIds: inputs.unassigneeIds };
  if (shape.removeLabels) variables.removeLabels = { labelableId: subject, labelIds: inputs.removeLabelIds };
  if (shape.assign) variables.assign = { assignableId: subject, assigneeIds: inputs.assigneeIds };
  if (shape.addLabels) variables.addLabels = { labelableId: subject, labelIds: inputs.addLabelIds };
  inputs.editComments.forEach((edit, i) => {
    variables[`edit${i}`] = { id: edit.nodeId, body: edit.body };
  });
  if (inputs.claimComment !== undefined) {
    variables.claimComment = { subjectId: subject, body: inputs.claimComment };
  }
  inputs.addComments.forEach((body, i) => {
    variables[`comment${i}`] = { subjectId: subject, body };
  });
  if (Object.keys(variables).length === 0) return null;
  return { document: transitionDocument(shape), variables };
}

export interface TransitionResponse {
  claimComment?: { commentEdge: { node: { id: string; databaseId: number | null } | null } | null } | null;
  [addedComment: `comment${number}`]:
    | { commentEdge: { node: { id: string } | null } | null }
    | null
    | undefined;
}

/** Every shape `buildTransitionMutation` can produce, for schema validation. */
export function allTransitionShapes(): TransitionShape[] {
  const shapes: TransitionShape[] = [];
  const flags = [false, true];
  for (const unassign of flags)
    for (const removeLabels of flags)
      for (const assign of flags)
        for (const addLabels of flags)
          for (const claimComment of flags)
            for (let edits = 0; edits <= MAX_EDITED_COMMENTS; edits++)
              for (let comments = 0; comments <= MAX_ADDED_COMMENTS; comments++) {
                const shape = { unassign, removeLabels, assign, addLabels, edits, claimComment, comments };
                if (unassign || removeLabels || assign || addLabels || claimComment || edits || comments) {
                  shapes.push(shape);
                }
              }
  return shapes;
}
