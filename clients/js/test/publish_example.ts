// Compiled by test/publish_types.test.mjs with `tsc --strict --noEmit`: the typed publish client
// takes what docs/openapi.yaml allows and refuses, at compile time, what the server would refuse.
// Each `@ts-expect-error` line must be an error (tsc fails on one that is not).
import { createPublishClient, isScheduled, RingcastApiError } from '../src/publish/index.js';
import type { PublishRequest, Reach } from '../src/publish/index.js';

const admin = createPublishClient({ url: 'http://127.0.0.1:8080', adminToken: 's3cret' });

export async function promote(): Promise<number> {
  const sale: PublishRequest = { data: { title: 'Spring sale' }, channel: 'shoes', ttl: '1h', sticky: true };
  const answer = await admin.publish(sale);
  if (isScheduled(answer)) return answer.at;
  const reach: Reach = await admin.reach(answer.id);
  await admin.publish({ data: null, users: ['alice', 'bob'], delay: '90s', spread: '30s' });
  await admin.cancelScheduled('0-0').catch((e: unknown) => {
    if (!(e instanceof RingcastApiError) || e.code !== 'not_found') throw e;
  });
  const recent = await admin.messages(5);
  await admin.presence({ top: 3 });
  return reach.delivered + recent.messages.length + answer.recipients;
}

export async function refused(): Promise<void> {
  // @ts-expect-error a misspelt field: the server answers 400 `unknown field "chanel"`
  await admin.publish({ data: 1, chanel: 'shoes' });
  // @ts-expect-error "data" is required
  await admin.publish({ channel: 'shoes' });
  // @ts-expect-error "sticky" is a JSON boolean, not a string
  await admin.publish({ data: 1, sticky: 'true' });
  // @ts-expect-error "at" is Unix ms, a number
  await admin.publish({ data: 1, at: '2026-12-01' });
  // @ts-expect-error "delay" is a duration string ("90s"), not a number the server would refuse
  await admin.publish({ data: 1, delay: 90 });
  // @ts-expect-error kick takes a user id, not an object
  await admin.kick({ user: 'alice' });
}
