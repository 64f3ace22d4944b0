// Markdown of session text (untrusted: it came from a user or a model).
// marked renders it with raw HTML escaped, so `<script>` in a message shows
// as text, and DOMPurify then keeps only the tags and attributes markdown
// needs. In the window, script in this HTML could call the Go bindings:
// nothing reaches {@html} without going through renderMarkdown.
// rhizome: links (items of the library) are kept: the window opens them in
// place. Notes and loom text also render [[mentions]] of items as chips
// (renderMarkdown(text, { mentions: true })).

import { Marked, type Tokens } from 'marked';
import DOMPurify, { type Config } from 'dompurify';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => escapes[c]);

const renderer = {
  // Raw HTML in a message is content, shown as written.
  html({ text, block }: Tokens.HTML | Tokens.Tag) {
    return block ? `<pre class="raw-html">${escapeHtml(text)}</pre>` : escapeHtml(text);
  },
  // No remote images from session text: a link instead.
  image({ href, text }: Tokens.Image) {
    return `<a href="${escapeHtml(href ?? '')}">${escapeHtml(`image: ${text || href || ''}`)}</a>`;
  },
};
// A rhizome: URI written in text (rhizome:node/…, rhizome:loom/…/…) is a
// link the window opens in place, in session text too; trailing
// punctuation stays text, code stays code.
const itemUri = {
  name: 'itemUri',
  level: 'inline' as const,
  start: (src: string) => {
    const i = src.search(/rhizome:(?:session|node|entry|loom|project|note)\//);
    return i < 0 ? undefined : i;
  },
  tokenizer(src: string) {
    const m = /^rhizome:(?:session|node|entry|loom|project|note)\/[^\s<>()[\]"'`]+/.exec(src);
    if (!m) return undefined;
    const uri = m[0].replace(/[.,;:!?]+$/, '');
    return { type: 'itemUri', raw: uri, uri };
  },
  renderer(token: unknown) {
    const u = escapeHtml((token as { uri: string }).uri);
    return `<a class="uri" href="${u}">${u}</a>`;
  },
};

const marked = new Marked({ gfm: true, breaks: true, async: false });
marked.use({ renderer, extensions: [itemUri] });

/** Whether a [[…]] target names an item (a mention) rather than a query (left as text). */
export const isItemTarget = (t: string) => /^(?:rhizome:[a-z]+\/\S|https?:\/\/\S)/i.test(t) || /^(?:\/|[A-Za-z]:[\\/])/.test(t);

// [[target|alias]]: a chip naming an item, as backend/link's Mentions reads
// them (one line, no [[ inside, at most 1024 bytes). Code spans and fences
// are tokenized before it, so brackets there stay code.
const mentions = new Marked({ gfm: true, breaks: true, async: false });
mentions.use({
  renderer,
  extensions: [
    itemUri,
    {
      name: 'mention',
      level: 'inline',
      start: (src: string) => {
        const i = src.indexOf('[[');
        return i < 0 ? undefined : i;
      },
      tokenizer(src: string) {
        const m = /^\[\[([^[\]\n|]{1,1024})(?:\|([^[\]\n]{0,1024}))?\]\]/.exec(src);
        if (!m || !isItemTarget(m[1].trim())) return undefined;
        return { type: 'mention', raw: m[0], target: m[1].trim(), alias: (m[2] ?? '').trim() };
      },
      renderer(token) {
        const t = token as unknown as { target: string; alias: string };
        const label = escapeHtml(t.alias || t.target);
        // A file path is no link (file: URLs are not opened from markdown).
        const href = /^(?:rhizome:|https?:)/i.test(t.target) ? ` href="${escapeHtml(t.target)}"` : '';
        return `<a class="mention"${href} title="${escapeHtml(t.target)}">${label}</a>`;
      },
    },
  ],
});

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'code', 'del', 'div', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'hr', 'i', 'kbd', 'li', 'ol', 'p', 'pre', 's', 'span', 'strong', 'sub', 'sup', 'table',
  'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'start', 'align', 'colspan', 'rowspan'];
const SAFE_HREF = /^(?:https?:|mailto:|#|rhizome:[a-z])/i;

type Purifier = ReturnType<typeof DOMPurify>;
let purifier: Purifier | null = null;

function purify(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!SAFE_HREF.test(href.trim())) node.removeAttribute('href');
      node.setAttribute('rel', 'noopener noreferrer');
      if (!/^rhizome:/i.test(href.trim())) node.setAttribute('target', '_blank');
    }
  });
  purifier = p;
  return p;
}

const CONFIG: Config = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // What SAFE_HREF keeps; DOMPurify's default would drop rhizome: hrefs.
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto|rhizome):|#)/i,
};

/** Sanitises an HTML string to the markdown subset (no script, no handlers, no images). */
export function sanitizeHtml(html: string): string {
  return purify().sanitize(html, { ...CONFIG, RETURN_TRUSTED_TYPE: false }) as string;
}

/** Renders untrusted markdown to sanitised HTML; with mentions, [[item]] mentions as chips (a.mention). */
export function renderMarkdown(text: string, opts: { mentions?: boolean } = {}): string {
  return sanitizeHtml((opts.mentions ? mentions : marked).parse(text) as string);
}
