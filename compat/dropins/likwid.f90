! SPDX-License-Identifier: MIT
! The Fortran module of LIKWID 5.2's marker API (use likwid), for libpmu-likwid:
! the interfaces of the subroutines it exports. Built into likwid.mod where
! gfortran is found, installed beside libpmu-likwid's C headers.
module likwid
    interface
        subroutine likwid_markerInit()
        end subroutine
        subroutine likwid_markerThreadInit()
        end subroutine
        subroutine likwid_markerNextGroup()
        end subroutine
        subroutine likwid_markerClose()
        end subroutine
        subroutine likwid_markerRegisterRegion(regionTag)
            character(*) :: regionTag
        end subroutine
        subroutine likwid_markerStartRegion(regionTag)
            character(*) :: regionTag
        end subroutine
        subroutine likwid_markerStopRegion(regionTag)
            character(*) :: regionTag
        end subroutine
        subroutine likwid_markerResetRegion(regionTag)
            character(*) :: regionTag
        end subroutine
        subroutine likwid_markerGetRegion(regionTag, nr_events, events, time, count)
            character(*) :: regionTag
            integer :: nr_events
            double precision, dimension(*) :: events
            double precision :: time
            integer :: count
        end subroutine
    end interface
end module likwid
