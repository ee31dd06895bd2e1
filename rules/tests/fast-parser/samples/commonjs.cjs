'use strict';
// A CommonJS module: top-level return, require, sloppy names.
const { join } = require('node:path');
let let_ = 1, yield_ = 2, static_ = 3;
var undefinedName = void 0;
module.exports = function handler(req, res) {
  if (!req) return res.end();
  return join(String(let_ + yield_ + static_), String(undefinedName));
};
if (process.env.SKIP) return;
