"$DIPMAP" frobnicate --now
