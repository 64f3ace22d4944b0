// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { termRanges } from './highlight';

describe('termRanges', () => {
  it('finds every occurrence of each term across the rendered text, case-insensitively, in order', () => {
    const d = document.createElement('div');
    d.innerHTML = '<p>The <b>Flaky</b> test was flaky.</p><pre>flaky &lt;script&gt;</pre>';
    const rs = termRanges(d, ['flaky', 'script', 'a']);
    expect(rs.map((r) => r.toString())).toEqual(['Flaky', 'flaky', 'flaky', 'script']);
    expect(rs[0].startContainer.parentElement?.tagName).toBe('B');
    expect(d.querySelectorAll('mark').length).toBe(0); // nothing added to the DOM
  });

  it('finds nothing for no terms', () => {
    const d = document.createElement('div');
    d.textContent = 'text';
    expect(termRanges(d, [])).toEqual([]);
  });
});
