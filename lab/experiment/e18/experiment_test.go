package e18

import ()
