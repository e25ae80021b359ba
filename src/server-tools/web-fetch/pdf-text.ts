/**
 * PDF to text with unpdf (a serverless build of Mozilla's PDF.js). It costs about 11 to 16 MB of RSS once
 * loaded, so it is imported on the first PDF fetched, never at start-up.
 */

type Unpdf = typeof import('unpdf');

let unpdf: Promise<Unpdf> | undefined;

/** The text of every page (pages separated by blank lines) and the document's title, if it has one. */
export async function textFromPdf(bytes: Uint8Array): Promise<{ title: string | null; text: string; pages: number }> {
  unpdf ??= import('unpdf');
  const { extractText, getDocumentProxy, getMeta } = await unpdf;
  // PDF.js takes ownership of (and detaches) the buffer it is given.
  const document = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text, totalPages } = await extractText(document, { mergePages: false });
    const meta = await getMeta(document).catch(() => undefined);
    const rawTitle = (meta?.info as { Title?: unknown } | undefined)?.Title;
    const title = typeof rawTitle === 'string' && rawTitle.trim() !== '' ? rawTitle.trim() : null;
    const joined = text
      .map((page) => page.trim())
      .filter((page) => page !== '')
      .join('\n\n');
    return { title, text: joined, pages: totalPages };
  } finally {
    await document.loadingTask.destroy();
  }
}
