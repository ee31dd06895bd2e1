"""Checks the packaged .vsix: only the bundles, the manifest, README, CHANGELOG, LICENSE,
the icon, the docs pages (dist/docs: one per rule, and the settings page), at most one native binding of the fast parser (oxc's, for the platform the .vsix is
built on; without it the server parses with @typescript-eslint/parser), and under 5 MB.
Usage: python3 check-vsix.py extension/fencelint.vsix"""
import os
import re
import sys
import zipfile

LIMIT = 5 * 1024 * 1024
# vsce adds its own manifest files and renames LICENSE to LICENSE.txt.
EXPECTED = {
    '[Content_Types].xml',
    'extension.vsixmanifest',
    'extension/package.json',
    'extension/readme.md',
    'extension/changelog.md',
    'extension/LICENSE.txt',
    'extension/icon.png',
    'extension/dist/client.js',
    'extension/dist/server.mjs',
    'extension/dist/libpg-query.wasm',
}

path = sys.argv[1]
size = os.path.getsize(path)
names = set(zipfile.ZipFile(path).namelist())
bindings = {n for n in names if re.fullmatch(r'extension/dist/parser\.[a-z0-9-]+\.node', n)}
names -= bindings
docs = {n for n in names if re.fullmatch(r'extension/dist/docs/(rules/[a-z0-9-]+|settings)\.md', n)}
names -= docs
problems = []
rules_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'rules', 'docs', 'rules')
wanted_docs = {f'extension/dist/docs/rules/{f}' for f in os.listdir(rules_dir) if f.endswith('.md')} | {'extension/dist/docs/settings.md'}
if wanted_docs - docs:
    problems.append(f'missing docs pages: {sorted(wanted_docs - docs)}')
if len(bindings) > 1:
    problems.append(f'more than one native binding: {sorted(bindings)}')
if size >= LIMIT:
    problems.append(f'{size} bytes, limit {LIMIT}')
if names - EXPECTED:
    problems.append(f'unexpected files: {sorted(names - EXPECTED)}')
if EXPECTED - names:
    problems.append(f'missing files: {sorted(EXPECTED - names)}')
print(f'{os.path.basename(path)}: {size / 1024:.0f} KiB, {len(names)} files' + (': ' + '; '.join(problems) if problems else ''))
sys.exit(1 if problems else 0)
