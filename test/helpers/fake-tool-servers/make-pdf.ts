/**
 * Writes a small PDF with pdf-lib (a maintained PDF writer): one page per entry of `pages`, each with its
 * lines of text, and a title in the document's metadata.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** The bytes of a PDF whose pages carry the given lines. */
export async function makePdf(options: { title?: string; pages: string[][] }): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  if (options.title) document.setTitle(options.title);
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const lines of options.pages) {
    const page = document.addPage([595, 842]);
    lines.forEach((line, index) => page.drawText(line, { x: 50, y: 780 - index * 24, size: 14, font }));
  }
  return document.save();
}
