// Markdown of session text (untrusted: it came from a user or a model).
// marked renders it with raw HTML escaped, so `<script>` in a message shows
// as text, and DOMPurify then keeps only the tags and attributes markdown
// needs. In the window, script in this HTML could call the Go bindings:
// nothing reaches {@html} without going through renderMarkdown.

import { Marked, type Tokens } from 'marked';
import DOMPurify, { type Config } from 'dompurify';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => escapes[c]);

const marked = new Marked({ gfm: true, breaks: true, async: false });
marked.use({
  renderer: {
    // Raw HTML in a message is content, shown as written.
    html({ text, block }: Tokens.HTML | Tokens.Tag) {
      return block ? `<pre class="raw-html">${escapeHtml(text)}</pre>` : escapeHtml(text);
    },
    // No remote images from session text: a link instead.
    image({ href, text }: Tokens.Image) {
      return `<a href="${escapeHtml(href ?? '')}">${escapeHtml(`image: ${text || href || ''}`)}</a>`;
    },
  },
});

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'code', 'del', 'div', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'hr', 'i', 'kbd', 'li', 'ol', 'p', 'pre', 's', 'span', 'strong', 'sub', 'sup', 'table',
  'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'start', 'align', 'colspan', 'rowspan'];
const SAFE_HREF = /^(?:https?:|mailto:|#)/i;

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
      node.setAttribute('target', '_blank');
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
};

/** Sanitises an HTML string to the markdown subset (no script, no handlers, no images). */
export function sanitizeHtml(html: string): string {
  return purify().sanitize(html, { ...CONFIG, RETURN_TRUSTED_TYPE: false }) as string;
}

/** Renders untrusted markdown to sanitised HTML. */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(marked.parse(text) as string);
}
