import { describe, expect, it } from 'vitest';
import { authorLabel } from './words';

const model = { authorType: 'model' as const, authorName: 'rhizome-test' };
const human = { authorType: 'human' as const, authorName: 'You' };

describe('authorLabel: one name for who wrote a node, everywhere', () => {
  it('names the model, or You', () => {
    expect(authorLabel(model)).toBe('rhizome-test');
    expect(authorLabel(human)).toBe('You');
    expect(authorLabel({ authorType: 'model', authorName: '' })).toBe('model');
  });
  it('calls the person’s edit of a node the original author’s, edited', () => {
    expect(authorLabel({ ...human, editedFrom: 'n1' }, model)).toBe('rhizome-test · edited');
    expect(authorLabel({ ...human, editedFrom: 'n2' }, human)).toBe('You · edited');
    // The original unknown: still an edit.
    expect(authorLabel({ ...human, editedFrom: 'n3' })).toBe('You · edited');
  });
});
