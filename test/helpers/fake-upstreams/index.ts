/**
 * Fake vendor APIs on 127.0.0.1 for provider tests: each replays recorded responses in the vendor's real
 * framing, records what it received and injects faults. See README.md beside this file for usage.
 */
export { startFakeAnthropic, anthropicMessagesFormat, type FakeAnthropicOptions } from './anthropic-messages.ts';
export { startFakeOpenAiChat, openAiChatFormat, type FakeOpenAiChatOptions } from './openai-chat.ts';
export { startFakeOpenAiResponses, openAiResponsesFormat, type FakeOpenAiResponsesOptions } from './openai-responses.ts';
export { startFakeGemini, geminiFormat, type FakeGeminiOptions } from './gemini.ts';
export { startFakeOpenAiModerations, openAiModerationsFormat, moderationAnswer, moderationResult } from './openai-moderations.ts';
export { startFakeBedrock, bedrockConverseFormat, splitBedrockEvent, type FakeBedrockOptions } from './bedrock-converse.ts';
export { encodeEventStreamMessage, decodeEventStreamMessages, type EventStreamMessage } from './aws-event-stream.ts';
export { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
export { reply, type FakeReply, type ReplyDelivery, type EitherReply } from './fake-reply.ts';
export { readFixture, readChunks, readFixtureText, fixturePath, type FixtureVendor } from './fixtures.ts';
export { splitBytes, everyTwoWaySplit, seededRandom, type ByteSplit } from './split-bytes.ts';
export { encodeSseFrame } from './sse-frame.ts';
export type { RecordedRequest, WireFormat } from './wire-format.ts';
export { anthropicStep, openAiChatStep, geminiStep, bedrockStep, type ScriptedStep, type ScriptedCall } from './tool-steps.ts';
