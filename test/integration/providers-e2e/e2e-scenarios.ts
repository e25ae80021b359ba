/**
 * The scenarios every end-to-end provider suite runs against its own vendor: broken or truncated answers, and
 * a BYOK credential whose key is the one sent upstream and is never shown.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type FakeReply, type RecordedRequest, type ReplyDelivery } from '#test/helpers/fake-upstreams/index.ts';
import {
  expectCost,
  expectInBandStreamError,
  expectSecretHidden,
  expectTypedServerError,
  finalStreamUsage,
  gatewayUsage,
  rejectionOf,
  streamThrough,
} from '#test/integration/providers-e2e/e2e-support.ts';
import { createByokCredential, type E2eSuite } from '#test/integration/providers-e2e/e2e-target.ts';

/** What the shared fault scenarios need from one family's file. */
export interface FaultSetup {
  suite: E2eSuite;
  request: MessageCreateParamsNonStreaming;
  /** A recorded reply with the given delivery; `.json` or `.chunks.txt` is picked from the request. */
  recording: (delivery: ReplyDelivery) => FakeReply;
  /** Recorded events to send before a mid-stream fault: enough for the client to have had its first byte. */
  midStreamAfterEvents?: number;
  /** Vendor text the in-stream error carries, which must not reach the client. */
  vendorDetail?: string;
}

/**
 * Broken or truncated upstream answers: a JSON body cut short, a reset, a stalled body, and a stream cut
 * short, reset, failed in-band or stalled after it began. Each ends in a typed error; none hangs. Needs a
 * gateway whose upstream body timeout is short (about a second).
 */
export function describeBrokenAnswers(name: string, setup: FaultSetup): void {
  const detail = setup.vendorDetail ?? 'vendor-detail-7f3a';
  const after = setup.midStreamAfterEvents ?? 2;
  describe(`${name}, broken answers`, () => {
    // The scripted fault must have been served: an error for any other reason (no key, a 400) proves nothing.
    afterEach(() => {
      expect(setup.suite.upstream.pendingReplies()).toBe(0);
    });

    it('answers a JSON body cut short with a 5xx in Anthropic error shape', async () => {
      setup.suite.upstream.enqueue(setup.recording({ truncate: { afterEvents: 0, plusBytes: 60, mode: 'end' } }));
      expectTypedServerError(await rejectionOf(setup.suite.client.messages.create(setup.request)));
    });

    it('answers a connection reset with a 5xx', async () => {
      setup.suite.upstream.enqueue(reply.reset());
      expectTypedServerError(await rejectionOf(setup.suite.client.messages.create(setup.request)));
    });

    it('answers a body that stalls after the headers with a 5xx once the body timeout passes', async () => {
      setup.suite.upstream.enqueue(setup.recording({ stallAfterEvents: 0 }));
      expectTypedServerError(await rejectionOf(setup.suite.client.messages.create(setup.request)));
    });

    it('ends a stream cut short with an in-band error the SDK raises', async () => {
      setup.suite.upstream.enqueue(setup.recording({ truncate: { afterEvents: after, plusBytes: 15, mode: 'end' } }));
      await expectInBandStreamError(setup.suite.client, setup.request);
    });

    it('ends a stream whose socket is reset mid-way with an in-band error', async () => {
      setup.suite.upstream.enqueue(setup.recording({ truncate: { afterEvents: after, mode: 'destroy' } }));
      await expectInBandStreamError(setup.suite.client, setup.request);
    });

    it("turns the vendor's in-stream error into a typed in-band error without the vendor's text", async () => {
      setup.suite.upstream.enqueue(setup.recording({ streamError: { afterEvents: after, status: 500, message: detail } }));
      await expectInBandStreamError(setup.suite.client, setup.request, [detail]);
    });

    it('ends a stream that stalls mid-way with an in-band error, not a hang', async () => {
      setup.suite.upstream.enqueue(setup.recording({ stallAfterEvents: after }));
      await expectInBandStreamError(setup.suite.client, setup.request);
    });
  });
}

/** What the BYOK scenario needs from one family's file. */
export interface ByokSetup {
  suite: E2eSuite;
  /** The provider slug the credential is for. */
  provider: string;
  /** The credential's key, and how the upstream receives it (`as the bearer token`). */
  key: string;
  sentAs: string;
  /** Where the upstream request carries the key, and what it must hold. */
  keyOf: (request: RecordedRequest) => unknown;
  expectedKey: string;
  request: MessageCreateParamsNonStreaming;
  /** The recorded answers to the message and to the stream. */
  replies: { message: FakeReply; stream: FakeReply };
  /** The message's cost in USD, computed by hand in the family's file. */
  cost: number;
  /** The gateway's own secret for the provider, which must not show either. */
  sharedSecret: string;
}

/**
 * A BYOK credential: a new conversation (earlier ones are pinned to the shared key by sticky sessions) sends
 * the credential's key upstream for a message and a stream, both marked `is_byok` and priced like any other
 * call, with neither key in the answers, their headers or the log.
 */
export function describeByokCredential(name: string, setup: ByokSetup): void {
  describe(`${name}, BYOK credential`, () => {
    it(`sends the credential key ${setup.sentAs}, marks is_byok and never shows the key`, async () => {
      const { upstream, client, gateway } = setup.suite;
      await createByokCredential(gateway, setup.provider, setup.key);
      const own = { ...setup.request, messages: [{ role: 'user' as const, content: 'A new conversation on my own key' }] };
      upstream.enqueue(setup.replies.message, setup.replies.stream);
      const response = await client.messages.create(own).withResponse();
      expect(setup.keyOf(upstream.lastRequest())).toBe(setup.expectedKey);
      expect(gatewayUsage(response.data).is_byok).toBe(true);
      expectCost(gatewayUsage(response.data).cost, setup.cost);

      const { events } = await streamThrough(client, own);
      expect(setup.keyOf(upstream.lastRequest())).toBe(setup.expectedKey);
      expect(finalStreamUsage(events).is_byok).toBe(true);
      expectSecretHidden(gateway, setup.key, JSON.stringify(response.data), JSON.stringify(events), JSON.stringify([...response.response.headers]));
      expectSecretHidden(gateway, setup.sharedSecret);
    });
  });
}
