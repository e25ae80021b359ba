/**
 * Whether an endpoint can read a request's own images and PDFs. A vendor sent a file its model cannot read
 * refuses the whole turn (a text-only OpenAI-compatible model answers 400 to an `image_url` part), so such an
 * endpoint is skipped before anything is sent, as one whose vendor cannot express the request: the plan moves
 * on, and when no endpoint can read the file the first refusal (naming the block and the model) is the answer.
 * Files inside a `tool_result` are not checked here: the translators put a note in their place
 * (src/providers/ai-sdk/place-tool-result-files.ts), as a tool's output is not the client's to choose.
 * Anthropic-format upstreams are not checked either: they are passed the request untouched and answer for
 * themselves, and a model added in the catalog file without `capabilities` lists no features it may well have.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { UnsupportedFeatureError } from '#src/errors.ts';
import { contentBlocks } from '#src/request/message-content.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { contentDocumentImages, isPdf } from '#src/routing/request-parameters.ts';

/** What the check reads of an attempt: its endpoint's features and the names a client recognises. */
export type MediaReader = Pick<Attempt, 'model' | 'imageInput' | 'pdfInput'> & { provider: Pick<Attempt['provider'], 'displayName' | 'family'> };

/**
 * Throws `UnsupportedFeatureError` naming the first image or PDF block (or content document holding images)
 * of a message that the attempt's endpoint cannot read; the request as it will be sent (the `file-parser`
 * plugin's text already in place of PDFs) is the one to check.
 */
export function checkReadableMedia(request: Pick<MessageRequest, 'messages'>, attempt: MediaReader): void {
  if ((attempt.imageInput && attempt.pdfInput) || attempt.provider.family === 'anthropic') return;
  const where = `${attempt.model} on ${attempt.provider.displayName}`;
  request.messages.forEach((message, messageIndex) => {
    contentBlocks(message).forEach((block, blockIndex) => {
      const path = `messages[${messageIndex}].content[${blockIndex}]`;
      if (block.type === 'image' && !attempt.imageInput) {
        throw new UnsupportedFeatureError(`${path} is an image, which ${where} cannot read (it has no vision input)`);
      }
      if (!attempt.imageInput && contentDocumentImages(block) > 0) {
        throw new UnsupportedFeatureError(`${path} is a document holding images, which ${where} cannot read (it has no vision input)`);
      }
      if (isPdf(block) && !attempt.pdfInput) {
        throw new UnsupportedFeatureError(`${path} is a PDF document, which ${where} cannot read (it has no PDF input); the file-parser plugin reads PDFs into text for such models`);
      }
    });
  });
}
