// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../node/markdown';
import { insertMention, mentionParts, openMention, plainMentions } from './mention';

describe('mentions typed with [[', () => {
  it('finds the [[query before the caret, and none once closed or across a line', () => {
    expect(openMention('see [[fix the', 13)).toEqual({ start: 4, query: 'fix the' });
    expect(openMention('see [[', 6)).toEqual({ start: 4, query: '' });
    expect(openMention('see [[a]] b', 11)).toBeNull();
    expect(openMention('[[a\nb', 5)).toBeNull();
    expect(openMention('see [[fix the', 8)).toEqual({ start: 4, query: 'fi' });
  });

  it('replaces the query with a mention that renders as a chip of the item, whatever its title', () => {
    const r = insertMention('see [[fix tail', 4, 9, 'rhizome:node/n1', 'Fix [the] | flaky\ntest');
    expect(r.text).toBe('see [[rhizome:node/n1|Fix the flaky test]] tail');
    expect(r.caret).toBe('see [[rhizome:node/n1|Fix the flaky test]]'.length);
    const d = document.createElement('div');
    d.innerHTML = renderMarkdown(r.text, { mentions: true });
    expect(d.querySelector('a.mention')?.getAttribute('href')).toBe('rhizome:node/n1');
    expect(d.querySelector('a.mention')?.textContent).toBe('Fix the flaky test');
  });

  it('splits plain text into text and mentions of items, leaving queries as text', () => {
    expect(mentionParts('a [[rhizome:node/n1|the fix]] b [[just words]] [[https://x.org/a]]')).toEqual([
      { text: 'a ' },
      { text: '[[rhizome:node/n1|the fix]]', uri: 'rhizome:node/n1', label: 'the fix' },
      { text: ' b [[just words]] ' },
      { text: '[[https://x.org/a]]', uri: 'https://x.org/a', label: 'https://x.org/a' },
    ]);
    expect(mentionParts('')).toEqual([{ text: '' }]);
  });

  it('writes mentions as their aliases in a title', () => {
    expect(plainMentions('And then, as in [[rhizome:node/n1|the poem]], moss [[a query]]')).toBe('And then, as in the poem, moss [[a query]]');
    expect(plainMentions('And then, as in [[rhizome:node/n1|User asked: wr…')).toBe('And then, as in User asked: wr…');
  });
});
