"$DIPMAP" --frobnicate
