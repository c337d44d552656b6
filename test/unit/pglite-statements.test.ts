import { hasSeveralStatements } from '../../src/db/pglite-statements';

describe('telling one SQL statement from several', () => {
  it('ignores semicolons inside literals, quoted names, comments and at the end', () => {
    expect(hasSeveralStatements("select * from users where account = 'a;b'")).toBe(false);
    expect(hasSeveralStatements("select 'it''s; fine' as \"odd;name\";")).toBe(false);
    expect(hasSeveralStatements('select 1; -- trailing; comment')).toBe(false);
    expect(hasSeveralStatements('select 1;  \n ')).toBe(false);
  });

  it('finds a second statement', () => {
    expect(hasSeveralStatements('create table a (x int); create table b (y int);')).toBe(true);
    expect(hasSeveralStatements("select 1; select 'x'")).toBe(true);
  });
});
