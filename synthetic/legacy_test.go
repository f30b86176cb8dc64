package synthetic_test

// legacyHash300 is hashOf(DefaultRealistic(300, 1)) before issue 26.
const legacyHash300 = 0xc22c995a63b53d92
