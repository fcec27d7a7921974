"$DIPMAP" help frobnicate
