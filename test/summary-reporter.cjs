// Mocha's spec output plus the plain closing line CI reads: "N passed, N failed".
const { Spec } = require('mocha').reporters;

module.exports = class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      console.log(`${this.stats.passes} passed, ${this.stats.failures} failed`);
    });
  }
};
