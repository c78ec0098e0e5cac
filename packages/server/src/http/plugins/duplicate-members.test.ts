import { describe, expect, it } from 'vitest';
import { findDuplicateMember } from './duplicate-members.js';

const check = (text: string) => findDuplicateMember(text, JSON.parse(text));

describe('findDuplicateMember', () => {
  it('finds a repeated name at the top level, nested in objects and in arrays', () => {
    expect(check('{"a":1,"a":2}')).toEqual({ name: 'a', pointer: '' });
    expect(check('{"x":{"b":[1],"c":0,"b":2}}')).toEqual({ name: 'b', pointer: '/x' });
    expect(check('[{"ok":1},{"k/~":{"z":1, "z" :1}}]')).toEqual({ name: 'z', pointer: '/1/k~1~0' });
    expect(check('{"a":1,"\\u0061":2}')).toEqual({ name: 'a', pointer: '' });
  });

  it('is not fooled by colons, quotes and escapes inside strings', () => {
    expect(check('{"a":"b\\":c","d":"e:f","g\\\\":"\\\\"}')).toBeUndefined();
    expect(check('{"url":"https://x.test:8443/","list":["a:b",":"],"n":{"m":{}}}')).toBeUndefined();
    expect(check('{"a\\"":1,"a":2}')).toBeUndefined();
    expect(check('"a:"')).toBeUndefined();
    expect(check('{ "a" \n : 1 , "b"\t:{"a":1}}')).toBeUndefined();
  });

  it('tells the same name in two objects from one name twice', () => {
    expect(check('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}')).toBeUndefined();
    expect(check('{"a":{"a":{"a":1,"a":1}}}')).toEqual({ name: 'a', pointer: '/a/a' });
  });

  it('follows a body nested deeper than the stack without overflowing it', () => {
    const depth = 200_000;
    expect(check('['.repeat(depth) + ']'.repeat(depth))).toBeUndefined();
    expect(check('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))).toBeUndefined();
    const deepDuplicate = '{"a":'.repeat(depth) + '{"b":1,"b":2}' + '}'.repeat(depth);
    expect(check(deepDuplicate)).toEqual({ name: undefined, pointer: '' });
  });
});
