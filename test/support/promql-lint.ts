// A PromQL check for the alert rules and dashboard queries, as far as promtool's would go without a parser:
// balanced brackets, known functions, range functions given a range, well-formed matchers and durations.

const functions = new Set([
  "abs",
  "absent",
  "absent_over_time",
  "avg",
  "avg_over_time",
  "bottomk",
  "ceil",
  "changes",
  "clamp",
  "clamp_max",
  "clamp_min",
  "count",
  "count_over_time",
  "count_values",
  "day_of_month",
  "day_of_week",
  "delta",
  "deriv",
  "exp",
  "floor",
  "group",
  "histogram_quantile",
  "hour",
  "idelta",
  "increase",
  "irate",
  "label_join",
  "label_replace",
  "last_over_time",
  "ln",
  "log10",
  "log2",
  "max",
  "max_over_time",
  "min",
  "min_over_time",
  "minute",
  "month",
  "predict_linear",
  "present_over_time",
  "quantile",
  "quantile_over_time",
  "rate",
  "resets",
  "round",
  "scalar",
  "sort",
  "sort_desc",
  "sqrt",
  "stddev",
  "stddev_over_time",
  "stdvar",
  "sum",
  "sum_over_time",
  "time",
  "timestamp",
  "topk",
  "vector",
  "year",
]);
/** Functions whose argument is a range vector (`x[5m]`). */
const rangeFunctions = new Set([
  "rate",
  "irate",
  "increase",
  "delta",
  "idelta",
  "deriv",
  "changes",
  "resets",
  "predict_linear",
  "absent_over_time",
  "avg_over_time",
  "count_over_time",
  "last_over_time",
  "max_over_time",
  "min_over_time",
  "present_over_time",
  "quantile_over_time",
  "stddev_over_time",
  "sum_over_time",
]);
const keywords = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "inf",
  "nan",
]);
const duration = /^(\d+(ms|s|m|h|d|w|y))+$/;
const matcher = /^\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*$/;

export interface PromQLCheck {
  errors: string[];
  /** The metric names the expression selects. */
  metrics: string[];
}

/** Checks one expression and names the metrics it reads. */
export function lintPromQL(expr: string): PromQLCheck {
  const errors: string[] = [];
  const closing: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  let inString = false;
  for (let at = 0; at < expr.length; at++) {
    const char = expr[at]!;
    if (inString) {
      if (char === "\\") at++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char in closing) stack.push(closing[char]!);
    else if (")]}".includes(char) && stack.pop() !== char) errors.push(`unbalanced "${char}" at ${at}`);
  }
  if (inString) errors.push("unterminated string");
  if (stack.length > 0) errors.push(`unclosed brackets: ${stack.join("")}`);

  for (const [, body] of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const part of body!.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)) {
      if (part.trim() !== "" && !matcher.test(part)) errors.push(`bad label matcher: ${part.trim()}`);
    }
  }
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const [, range] of withoutStrings.matchAll(/\[([^\]]*)\]/g)) {
    const [window, step] = range!.split(":");
    if (!duration.test(window!) || (step !== undefined && step !== "" && !duration.test(step))) {
      errors.push(`bad range: [${range}]`);
    }
  }
  for (const call of expr.matchAll(/\b([a-z_]+)\s*\(/g)) {
    if (!rangeFunctions.has(call[1]!)) continue;
    const argument = argumentOf(expr, call.index! + call[0].length);
    if (!argument.trim().endsWith("]")) errors.push(`${call[1]} needs a range vector: ${argument}`);
  }

  const bare = withoutStrings
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const metrics = new Set<string>();
  for (const token of bare.matchAll(/(?<![\w.:])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = token[0];
    const next = bare.slice(token.index! + name.length).trimStart();
    if (next.startsWith("(")) {
      if (!functions.has(name)) errors.push(`unknown function ${name}`);
    } else if (!keywords.has(name.toLowerCase())) {
      metrics.add(name);
    }
  }
  return { errors, metrics: [...metrics] };
}

/** The text between the parenthesis opened just before `from` and its match. */
function argumentOf(expr: string, from: number): string {
  let depth = 1;
  for (let at = from; at < expr.length; at++) {
    if (expr[at] === "(") depth++;
    if (expr[at] === ")" && --depth === 0) return expr.slice(from, at);
  }
  return expr.slice(from);
}
