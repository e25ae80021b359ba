/**
 * HTML to readable text: Mozilla Readability (Firefox Reader View) finds the article on a linkedom DOM, and the
 * article is written out as text with its paragraph, heading and list structure. Both libraries cost about
 * 38 MB of RSS once loaded (jsdom would cost about 93 MB), so they are imported on the first page fetched,
 * never at start-up.
 */

/** The little of the DOM this module reads (the project compiles without the DOM library). */
interface DomNode {
  nodeType: number;
  textContent: string | null;
  tagName?: string;
  childNodes: ArrayLike<DomNode>;
}

interface DomDocument extends DomNode {
  title: string;
  body: DomNode | null;
}

interface HtmlLibraries {
  parseHTML: (html: string) => { document: DomDocument };
  Readability: new (document: DomDocument, options?: { charThreshold?: number }) => { parse(): { title?: string | null; content?: string | null } | null };
}

let libraries: Promise<HtmlLibraries> | undefined;

function loadHtmlLibraries(): Promise<HtmlLibraries> {
  libraries ??= Promise.all([import('linkedom'), import('@mozilla/readability')]).then(([linkedom, readability]) => ({
    parseHTML: linkedom.parseHTML as unknown as HtmlLibraries['parseHTML'],
    Readability: readability.Readability as unknown as HtmlLibraries['Readability'],
  }));
  return libraries;
}

const BLOCKS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'HEADER',
  'HR', 'MAIN', 'NAV', 'OL', 'P', 'SECTION', 'TABLE', 'TBODY', 'THEAD', 'TR', 'UL',
]);
const HEADINGS: Readonly<Record<string, string>> = { H1: '# ', H2: '## ', H3: '### ', H4: '#### ', H5: '##### ', H6: '###### ' };
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'CANVAS', 'IFRAME']);

/** Writes a DOM subtree as text: block elements on their own lines, headings and list items marked. */
function writeText(node: DomNode, out: string[], preformatted: boolean): void {
  if (node.nodeType === 3) {
    const text = node.textContent ?? '';
    out.push(preformatted ? text : text.replace(/\s+/g, ' '));
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const tag = node.tagName?.toUpperCase() ?? '';
  if (SKIPPED.has(tag)) return;
  if (tag === 'BR') {
    out.push('\n');
    return;
  }
  const heading = HEADINGS[tag];
  const block = heading !== undefined || BLOCKS.has(tag) || tag === 'LI' || tag === 'PRE' || tag === 'TD' || tag === 'TH';
  if (block) out.push('\n\n');
  if (heading) out.push(heading);
  if (tag === 'LI') out.push('- ');
  for (const child of Array.from(node.childNodes)) writeText(child, out, preformatted || tag === 'PRE');
  if (tag === 'TD' || tag === 'TH') out.push(' ');
  if (block) out.push('\n\n');
}

/** Joins written pieces, trimming spaces at line ends and keeping at most one blank line between blocks. */
function tidy(pieces: string[]): string {
  return pieces
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/g, '').replace(/^ +(?=\S)/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The readable text and title of an HTML page; falls back to the whole body when Readability finds no article. */
export async function readableTextFromHtml(html: string): Promise<{ title: string | null; text: string }> {
  const { parseHTML, Readability } = await loadHtmlLibraries();
  const { document } = parseHTML(html);
  const pageTitle = document.title?.trim() || null;
  // Readability takes the document apart, so the fallback reads a second copy.
  const article = new Readability(document, { charThreshold: 100 }).parse();
  if (article?.content) {
    const pieces: string[] = [];
    const { document: articleDocument } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
    writeText(articleDocument.body ?? articleDocument, pieces, false);
    const text = tidy(pieces);
    if (text !== '') return { title: article.title?.trim() || pageTitle, text };
  }
  const pieces: string[] = [];
  const { document: whole } = parseHTML(html);
  writeText(whole.body ?? whole, pieces, false);
  return { title: pageTitle, text: tidy(pieces) };
}
