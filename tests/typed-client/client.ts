// tests/typed-client/client.ts -- a small typed posenc client over fetch, typed only by the
// types openapi-typescript generates from openapi.yaml (./api.d.ts, written by run.mjs). The
// request body of each POST route is the spec's schema; the answer is the 200 JSON schema
// (application/json), kept apart from the .npy answer (application/x-npy), which postNpy returns.
import type { components, paths } from './api.js';

/** The compute routes: the paths with a POST that takes a JSON body. */
export type JsonPost = {
  [P in keyof paths]: paths[P] extends { post: { requestBody: { content: { 'application/json': unknown } } } } ? P : never;
}[keyof paths];

/** The request body of POST P, as the spec says. */
export type Body<P extends JsonPost> = paths[P]['post'] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The 200 JSON answer of POST P. */
export type Answer<P extends JsonPost> = paths[P]['post'] extends {
  responses: { 200: { content: { 'application/json': infer A } } };
}
  ? A
  : never;

/** A problem+json answer, raised as an exception. */
export class PosencError extends Error {
  constructor(
    readonly status: number,
    readonly problem: components['schemas']['Problem'],
  ) {
    super(`${status} ${problem.detail}`);
  }
}

/** POST body to route P on the daemon at base; the JSON answer or a PosencError. */
export async function post<P extends JsonPost>(base: string, route: P, body: Body<P>): Promise<Answer<P>> {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const json: unknown = await res.json();
  if (res.status !== 200) throw new PosencError(res.status, json as components['schemas']['Problem']);
  return json as Answer<P>;
}

/** The .npy answer of POST P (Accept: application/x-npy): the file's bytes. */
export async function postNpy<P extends JsonPost>(base: string, route: P, body: Body<P>): Promise<ArrayBuffer> {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-npy' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new PosencError(res.status, (await res.json()) as components['schemas']['Problem']);
  return res.arrayBuffer();
}
