// The React hook as an application uses it; type-checked with `tsc --strict` against @types/react
// (react.test.mjs). The line marked ts-expect-error must stay an error.
import { useRingcast } from 'ringcast-client/react';
import type { UseRingcastOptions, UseRingcastResult } from 'ringcast-client/react';
import type { RingcastMessage, StatusEvent } from 'ringcast-client';

interface Promotion { title: string }

export function Promotions({ user }: { user: string }) {
  const options: UseRingcastOptions = { user, channels: ['gree'], maxMessages: 20 };
  const { messages, status, client }: UseRingcastResult<Promotion> = useRingcast<Promotion>(options);
  const latest: RingcastMessage<Promotion> | undefined = messages.at(-1);
  const state: StatusEvent['state'] = status.state;
  return (
    <section>
      <p>{state}</p>
      <ul>{messages.map((m) => <li key={m.id}>{m.data.title}</li>)}</ul>
      {latest && <button onClick={() => client?.ack(latest.id)}>seen</button>}
    </section>
  );
}

// @ts-expect-error: maxMessages is a number
useRingcast({ user: 'bob', maxMessages: 'all' });
