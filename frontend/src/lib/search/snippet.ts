// Search snippets: plain text with matches between \u0001 and \u0002
// (SearchHit.snippet). They are split into parts that the view renders as
// text and <mark> nodes, so the snippet is never parsed as HTML.

export interface SnippetPart {
  text: string;
  mark: boolean;
}

const START = '\u0001';
const END = '\u0002';

/** Splits a snippet into plain and marked parts; stray markers are dropped. */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let mark = false;
  let text = '';
  const flush = () => {
    if (text) parts.push({ text, mark });
    text = '';
  };
  for (const ch of snippet) {
    if (ch === START) {
      if (!mark) {
        flush();
        mark = true;
      }
    } else if (ch === END) {
      if (mark) {
        flush();
        mark = false;
      }
    } else {
      text += ch;
    }
  }
  flush();
  return parts;
}
