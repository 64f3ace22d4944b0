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
