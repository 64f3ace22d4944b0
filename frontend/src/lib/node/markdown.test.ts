// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown, sanitizeHtml } from './markdown';

function dom(html: string) {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('renderMarkdown', () => {
  it('renders markdown', () => {
    const d = dom(renderMarkdown('# Title\n\nsome **bold** and `code`\n\n- a\n- b'));
    expect(d.querySelector('h1')?.textContent).toBe('Title');
    expect(d.querySelector('strong')?.textContent).toBe('bold');
    expect(d.querySelectorAll('li').length).toBe(2);
  });

  it('shows <script> as text and never as an element', () => {
    const d = dom(renderMarkdown('hi <script>window.__pwned=1</script> there'));
    expect(d.querySelector('script')).toBeNull();
    expect(d.textContent).toContain('<script>window.__pwned=1</script>');
    const block = dom(renderMarkdown('<script>\nwindow.__pwned=1\n</script>'));
    expect(block.querySelector('script')).toBeNull();
    expect(block.textContent).toContain('window.__pwned=1');
  });

  it('neutralises <img onerror>', () => {
    const d = dom(renderMarkdown('<img src=x onerror="window.__pwned=2">'));
    expect(d.querySelector('img')).toBeNull();
    expect(d.querySelector('[onerror]')).toBeNull();
    expect(d.textContent).toContain('onerror');
  });

  it('drops javascript: links but keeps their text', () => {
    const d = dom(renderMarkdown('[x](javascript:window.__pwned=3) and [ok](https://example.com)'));
    const links = d.querySelectorAll('a');
    expect(links[0].getAttribute('href')).toBeNull();
    expect(links[0].textContent).toBe('x');
    expect(links[1].getAttribute('href')).toBe('https://example.com');
    expect(links[1].getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('turns markdown images into links', () => {
    const d = dom(renderMarkdown('![tracker](https://example.com/t.png)'));
    expect(d.querySelector('img')).toBeNull();
    expect(d.querySelector('a')?.getAttribute('href')).toBe('https://example.com/t.png');
  });

  it('sanitises HTML that did not come from marked', () => {
    const d = dom(sanitizeHtml('<p onclick="x()">a</p><svg onload="x()"></svg><iframe src="x"></iframe><a href="data:text/html,x">d</a>'));
    expect(d.innerHTML).toBe('<p>a</p><a rel="noopener noreferrer" target="_blank">d</a>');
  });
});

describe('renderMarkdown with mentions', () => {
  it('renders [[item|alias]] as a chip linking the item, queries and code as text', () => {
    const d = dom(
      renderMarkdown('See [[rhizome:node/abc123|the fix]] and [[some query]] and `[[rhizome:node/x]]`', { mentions: true }),
    );
    const chips = d.querySelectorAll('a.mention');
    expect(chips.length).toBe(1);
    expect(chips[0].getAttribute('href')).toBe('rhizome:node/abc123');
    expect(chips[0].textContent).toBe('the fix');
    expect(chips[0].getAttribute('target')).toBeNull();
    expect(d.textContent).toContain('[[some query]]');
    expect(d.querySelector('code')?.textContent).toBe('[[rhizome:node/x]]');
  });

  it('escapes a mention alias and keeps no script', () => {
    const d = dom(renderMarkdown('[[rhizome:node/a|<img src=x onerror=alert(1)>]] <script>window.__pwned=1</script>', { mentions: true }));
    expect(d.querySelector('img')).toBeNull();
    expect(d.querySelector('script')).toBeNull();
    expect(d.querySelector('a.mention')?.textContent).toBe('<img src=x onerror=alert(1)>');
  });

  it('keeps rhizome: links in plain markdown and leaves session text mentions alone', () => {
    const d = dom(renderMarkdown('[open](rhizome:loom/T1/N1) [[rhizome:node/a]]'));
    expect(d.querySelector('a')?.getAttribute('href')).toBe('rhizome:loom/T1/N1');
    expect(d.querySelector('a.mention')).toBeNull();
  });
});

describe('renderMarkdown with bare rhizome: URIs', () => {
  it('links a URI written in text, without the punctuation after it, and not inside code', () => {
    const d = dom(renderMarkdown('Went on in rhizome:loom/T1/N1. See `rhizome:node/x` too', {}));
    const a = d.querySelectorAll('a');
    expect(a.length).toBe(1);
    expect(a[0].getAttribute('href')).toBe('rhizome:loom/T1/N1');
    expect(a[0].textContent).toBe('rhizome:loom/T1/N1');
    expect(a[0].getAttribute('target')).toBeNull();
    expect(d.querySelector('code')?.textContent).toBe('rhizome:node/x');
  });

  it('leaves words that only look like a scheme alone', () => {
    const d = dom(renderMarkdown('rhizome:nothing and rhizome:script/<b>x</b>', { mentions: true }));
    expect(d.querySelector('a')).toBeNull();
  });
});
