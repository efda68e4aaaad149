package experiment

// The segment experiments at small scale, on the shared small
// environment: each checks the direction the article reports on counted
// quantities (segments, distances, bytes), which do not depend on the
// machine's speed.
