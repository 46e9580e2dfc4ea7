// The public GraphQL API, over POST, with the session's token. Nothing else is called.

const TOKEN_KEY = 'brain.token';

export class AuthRequired extends Error {
  constructor(message: string, readonly invalid: boolean) { super(message); }
}
export class Forbidden extends Error {}
export class ApiError extends Error {}

/** The token lives in sessionStorage only: gone when the tab closes. */
export const token = {
  get(): string | null { return sessionStorage.getItem(TOKEN_KEY); },
  set(value: string): void { sessionStorage.setItem(TOKEN_KEY, value); },
  clear(): void { sessionStorage.removeItem(TOKEN_KEY); },
};

type GraphQLResponse<T> = { data?: T; errors?: { message: string; path?: string[] }[] };

let onAuthRequired: (e: AuthRequired) => void = () => {};
export function setAuthHandler(fn: (e: AuthRequired) => void): void { onAuthRequired = fn; }

/**
 * Answers asked for before the code that wants them has loaded (the first screen's data is on
 * its way while its view's chunk downloads). The first `gql` call with the same query and
 * variables takes it; later ones ask again.
 */
const early = new Map<string, Promise<unknown>>();
const keyOf = (query: string, variables: Record<string, unknown>) => `${query}\u0000${JSON.stringify(variables)}`;

export function prefetch(query: string, variables: Record<string, unknown> = {}): void {
  const answer = ask(query, variables);
  answer.catch(() => {});  // whoever takes it handles the error; unclaimed, it is dropped
  early.set(keyOf(query, variables), answer);
}

/** After the first screen: an answer nobody took is not kept to be taken, stale, later. */
export function forgetPrefetched(): void {
  early.clear();
}

export function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const key = keyOf(query, variables);
  const answer = early.get(key);
  if (answer) {
    early.delete(key);
    return answer as Promise<T>;
  }
  return ask<T>(query, variables);
}

async function ask<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  // The UI's edits are recorded with origin `ui` by the server itself: the session cookie its
  // page set goes with every same-origin request (brain/api/http/uisession.py).
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const t = token.get();
  if (t) headers.Authorization = `Bearer ${t}`;
  let response: Response;
  try {
    response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  } catch {
    throw new ApiError('brain is not reachable: is `brain serve` running?');
  }
  if (response.status === 401) {
    // Asked before a sign-in that has happened since (a slow first request): not a refusal of
    // the token now held, so asked again with it, instead of asking the person again.
    if (token.get() !== t) return ask<T>(query, variables);
    const e = new AuthRequired(t ? 'That token is not valid here.' : 'This brain asks for a token.', Boolean(t));
    onAuthRequired(e);
    throw e;
  }
  if (response.status === 503) throw new ApiError('brain is still reading the workspace; retrying…');
  let body: GraphQLResponse<T>;
  try {
    body = (await response.json()) as GraphQLResponse<T>;
  } catch {
    throw new ApiError(`brain answered ${response.status} without JSON`);
  }
  if (body.errors?.length) {
    const message = body.errors.map((e) => e.message).join('; ');
    if (/needs an admin token/.test(message)) throw new Forbidden(message);
    throw new ApiError(message);
  }
  if (!body.data) throw new ApiError(`brain answered ${response.status} without data`);
  return body.data;
}
