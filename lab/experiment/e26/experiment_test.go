package e26

import ()
