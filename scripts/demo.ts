// Placeholder until the generators land: the demo generates and serves the sample Product app.
console.error('npm run demo: the demo app is not there yet; it arrives with the generators.');
process.exit(1);
