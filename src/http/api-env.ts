// The per-request variables every route of the API can read (set by the API's first middleware).
export type ApiEnv = { Variables: { requestId: string; clientAddress: string } };
