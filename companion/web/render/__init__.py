"""Drawing the screens: what they show computed from a game's state (views), kept and
compressed HTML, the languages, the chart, the QR code and the files every page loads."""
