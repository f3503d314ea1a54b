// What a Lua script answers, declared by name (as its header's Reply section reads) and decoded once, here.
/** A value as Redis hands a script's reply over: Lua false and nil arrive as null, a table as an array. */
export type ScriptReply = string | number | null | ScriptReply[];

/** A value a script answers as it is: a number, a string, false (null) or `{}` (an empty list). */
export type ReplyLiteral = string | number | null | readonly [];

/** Named fields, each a value; a name ending in `...` takes the rest of the tuple as a list. */
type Fields<N extends string> = {
  [F in N as F extends `${infer Rest}...` ? Rest : F]: F extends `${string}...` ? ScriptReply[] : ScriptReply;
};

type Flat<T> = { [P in keyof T]: T[P] } & {};

/** `{ kind, …fields }` for each kind of a tagged reply: a union discriminated by `kind`. */
export type TaggedReply<M extends Readonly<Record<string, readonly string[]>>> = {
  [Kind in keyof M & string]: Flat<{ kind: Kind } & Fields<M[Kind][number]>>;
}[keyof M & string];

/**
 * How a script answers, and how `runScript` decodes it:
 * - `tagged`: tuples `{'kind', field…}` → `{ kind, …fields }` (an unknown kind is an error);
 * - `tuple`: one tuple `{field…}` → `{ …fields }`;
 * - `value`: one value, `or` the literals it may be instead → `{ [name]: value }`;
 * - `literals`: one of these values, as it is (any other is an error).
 */
export type ReplyDeclaration =
  | { readonly form: "tagged"; readonly kinds: Readonly<Record<string, readonly string[]>> }
  | { readonly form: "tuple"; readonly fields: readonly string[] }
  | { readonly form: "value"; readonly name: string; readonly or: readonly ReplyLiteral[] }
  | { readonly form: "literals"; readonly values: readonly ReplyLiteral[] };

export type Replies<R> = ReplyDeclaration & {
  /** The reply by name; `script` names the script in the error for a reply outside the declaration. */
  readonly decode: (reply: ScriptReply, script: string) => R;
};

/** The script's replies are tuples whose first element is their kind: `{ ok: ["record"], missing: [] }`. */
export function tagged<const M extends Readonly<Record<string, readonly string[]>>>(
  kinds: M,
): Replies<TaggedReply<M>> {
  const fieldsOf = new Map<unknown, readonly string[]>(Object.entries(kinds));
  return {
    form: "tagged",
    kinds,
    decode(reply, script) {
      if (!Array.isArray(reply)) throw unexpectedReply(script, reply);
      const fields = fieldsOf.get(reply[0]);
      if (fields === undefined) throw unexpectedReply(script, reply);
      const named: Record<string, ScriptReply> = { kind: reply[0]! };
      for (let i = 0; i < fields.length; i++) named[fields[i]!] = reply[i + 1] ?? null;
      return named as TaggedReply<M>;
    },
  };
}

/** The script answers one tuple: `tuple("record", "previous")`; a last `"name..."` collects the rest. */
export function tuple<const N extends readonly string[]>(...fields: N): Replies<Flat<Fields<N[number]>>> {
  const last = fields.at(-1);
  const restName = last?.endsWith("...") ? last.slice(0, -3) : undefined;
  const fixed = restName === undefined ? fields : fields.slice(0, -1);
  return {
    form: "tuple",
    fields,
    decode(reply, script) {
      if (!Array.isArray(reply)) throw unexpectedReply(script, reply);
      const named: Record<string, ScriptReply> = {};
      for (let i = 0; i < fixed.length; i++) named[fixed[i]!] = reply[i] ?? null;
      if (restName !== undefined) named[restName] = reply.slice(fixed.length);
      return named as Flat<Fields<N[number]>>;
    },
  };
}

/** The script answers one value, or one of the literals `or`: `value("epoch")`. */
export function value<const N extends string>(name: N, ...or: ReplyLiteral[]): Replies<Fields<N>> {
  return {
    form: "value",
    name,
    or,
    decode: (reply) => ({ [name]: reply }) as Fields<N>,
  };
}

/** The script answers one of these values, passed on as it is: `literals(1, 0)`. */
export function literals<const L extends readonly (string | number | null)[]>(
  ...values: L
): Replies<L[number]> {
  return {
    form: "literals",
    values,
    decode(reply, script) {
      if (!values.includes(reply as L[number])) throw unexpectedReply(script, reply);
      return reply as L[number];
    },
  };
}

export function unexpectedReply(script: string, reply: ScriptReply): Error {
  return new Error(`the Redis store's ${script} script answered unexpectedly: ${JSON.stringify(reply)}`);
}
