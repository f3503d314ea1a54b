// The GraphQL mutations the App sends, applied to the simulator's state (each change sends its webhook).
import { roleAtLeast } from "../sim-state.js";
import type { RepoRole, SimIssue, SimLabel, SimUser } from "../sim-types.js";
import {
  commentView,
  type GraphqlContext,
  githubError,
  issueView,
  nodeView,
  visibleRepo,
} from "./graphql-views.js";

type Input = Record<string, unknown>;
type Mutation = (args: { input: Input }, ctx: GraphqlContext) => unknown;

function notFound(nodeId: unknown) {
  return githubError("NOT_FOUND", `Could not resolve to a node with the global id of '${String(nodeId)}'`);
}

function issueNode(ctx: GraphqlContext, nodeId: unknown): SimIssue {
  const node = ctx.state.nodeById(String(nodeId));
  if (node?.kind !== "issue" && node?.kind !== "pull") throw notFound(nodeId);
  const issue = ctx.state.issues.get(node.id);
  if (!issue) throw notFound(nodeId);
  const repo = ctx.state.repoById(issue.repoId);
  try {
    visibleRepo(ctx, repo, ctx.state.fullName(repo));
  } catch {
    throw notFound(nodeId);
  }
  return issue;
}

function userNodes(ctx: GraphqlContext, nodeIds: unknown): SimUser[] {
  return (nodeIds as string[]).map((nodeId) => {
    const node = ctx.state.nodeById(nodeId);
    const user = node && ["user", "bot"].includes(node.kind) ? ctx.state.users.get(node.id) : undefined;
    if (!user) throw notFound(nodeId);
    return user;
  });
}

function labelNodes(ctx: GraphqlContext, issue: SimIssue, nodeIds: unknown): SimLabel[] {
  const repo = ctx.state.repoById(issue.repoId);
  return (nodeIds as string[]).map((nodeId) => {
    const label = repo.labels.find((l) => l.nodeId === nodeId);
    if (!label) throw notFound(nodeId);
    return label;
  });
}

/** An installation holds issues:write; a user needs the role on the repository. */
function requireRole(ctx: GraphqlContext, issue: SimIssue, role: RepoRole, mutation: string): void {
  if (ctx.caller.kind === "installation") return;
  const repo = ctx.state.repoById(issue.repoId);
  if (!roleAtLeast(ctx.state.roleOf(repo, ctx.viewer), role)) {
    throw githubError(
      "FORBIDDEN",
      `${ctx.viewer.login} does not have the correct permissions to execute \`${mutation}\``,
    );
  }
}

function commentNode(ctx: GraphqlContext, nodeId: unknown) {
  const node = ctx.state.nodeById(String(nodeId));
  const comment = node?.kind === "comment" ? ctx.state.comments.get(node.id) : undefined;
  if (!comment) throw notFound(nodeId);
  nodeView(ctx, comment.nodeId);
  return comment;
}

const clientMutationId = (input: Input) => (input.clientMutationId as string | undefined) ?? null;

export const mutations: Record<string, Mutation> = {
  addAssigneesToAssignable({ input }, ctx) {
    const issue = issueNode(ctx, input.assignableId);
    requireRole(ctx, issue, "triage", "AddAssigneesToAssignable");
    ctx.state.addAssignees(issue, userNodes(ctx, input.assigneeIds), ctx.viewer);
    return { clientMutationId: clientMutationId(input), assignable: issueView(ctx, issue) };
  },
  removeAssigneesFromAssignable({ input }, ctx) {
    const issue = issueNode(ctx, input.assignableId);
    requireRole(ctx, issue, "triage", "RemoveAssigneesFromAssignable");
    ctx.state.removeAssignees(issue, userNodes(ctx, input.assigneeIds), ctx.viewer);
    return { clientMutationId: clientMutationId(input), assignable: issueView(ctx, issue) };
  },
  addLabelsToLabelable({ input }, ctx) {
    const issue = issueNode(ctx, input.labelableId);
    requireRole(ctx, issue, "triage", "AddLabelsToLabelable");
    ctx.state.addLabels(issue, labelNodes(ctx, issue, input.labelIds), ctx.viewer);
    return { clientMutationId: clientMutationId(input), labelable: issueView(ctx, issue) };
  },
  removeLabelsFromLabelable({ input }, ctx) {
    const issue = issueNode(ctx, input.labelableId);
    requireRole(ctx, issue, "triage", "RemoveLabelsFromLabelable");
    ctx.state.removeLabels(issue, labelNodes(ctx, issue, input.labelIds), ctx.viewer);
    return { clientMutationId: clientMutationId(input), labelable: issueView(ctx, issue) };
  },
  addComment({ input }, ctx) {
    const issue = issueNode(ctx, input.subjectId);
    const comment = ctx.state.addComment(issue, ctx.viewer, String(input.body));
    const edge = {
      cursor: Buffer.from(`cursor:v2:${comment.id}`).toString("base64"),
      node: commentView(ctx, comment),
    };
    return {
      clientMutationId: clientMutationId(input),
      commentEdge: edge,
      timelineEdge: edge,
      subject: issueView(ctx, issue),
    };
  },
  updateIssueComment({ input }, ctx) {
    const comment = commentNode(ctx, input.id);
    if (comment.authorId !== ctx.viewer.id) {
      requireRole(ctx, ctx.state.issueOfComment(comment), "triage", "UpdateIssueComment");
    }
    ctx.state.editComment(comment, String(input.body), ctx.viewer);
    return { clientMutationId: clientMutationId(input), issueComment: commentView(ctx, comment) };
  },
  deleteIssueComment({ input }, ctx) {
    const comment = commentNode(ctx, input.id);
    if (comment.authorId !== ctx.viewer.id) {
      requireRole(ctx, ctx.state.issueOfComment(comment), "triage", "DeleteIssueComment");
    }
    ctx.state.deleteComment(comment, ctx.viewer);
    return { clientMutationId: clientMutationId(input) };
  },
  closeIssue({ input }, ctx) {
    const issue = issueNode(ctx, input.issueId);
    requireRole(ctx, issue, "triage", "CloseIssue");
    const reason = input.stateReason === "NOT_PLANNED" ? "not_planned" : "completed";
    ctx.state.setIssueState(issue, "closed", ctx.viewer, reason);
    return { clientMutationId: clientMutationId(input), issue: issueView(ctx, issue) };
  },
  reopenIssue({ input }, ctx) {
    const issue = issueNode(ctx, input.issueId);
    requireRole(ctx, issue, "triage", "ReopenIssue");
    ctx.state.setIssueState(issue, "open", ctx.viewer);
    return { clientMutationId: clientMutationId(input), issue: issueView(ctx, issue) };
  },
};
