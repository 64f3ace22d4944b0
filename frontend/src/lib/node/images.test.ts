import { describe, expect, it } from 'vitest';
import { imageDataURL } from './images';

describe('imageDataURL', () => {
  it('builds data URLs for raster images', () => {
    expect(imageDataURL('image/png', 'iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(imageDataURL('IMAGE/JPEG', 'aGk=\n')).toBe('data:image/jpeg;base64,aGk=');
  });
  it('refuses other types and non-base64 data', () => {
    expect(imageDataURL('image/svg+xml', 'PHN2Zz4=')).toBeNull();
    expect(imageDataURL('text/html', 'aGk=')).toBeNull();
    expect(imageDataURL('image/png', 'a"><script>')).toBeNull();
    expect(imageDataURL(undefined, 'aGk=')).toBeNull();
    expect(imageDataURL('image/png', '')).toBeNull();
  });
});
