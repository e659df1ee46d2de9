! rfc_modes.f90 — examples/rfc_modes.c in Fortran, through the colldiag module; prints the same lines.
!
! A 1-D dataset of three chunks (30 integers, chunks of 10). Rank 0 writes part of chunk 0, rank 1 parts
! of chunks 0 and 1, rank 2 part of chunk 2. Collective, ratio 40 (threshold max(1, 3*40/100) = 1), so
! chunk 0 (2 ranks) is collective and chunks 1 and 2 (1 rank each) are independent. Run with 3 ranks:
!
!   mpirun -n 3 ./rfc_modes_f90 [file]
program rfc_modes
    use mpi_f08
    use colldiag
    use, intrinsic :: iso_fortran_env, only: int64, output_unit
    implicit none
    integer :: rank, nprocs, i, r, co, io, lc, gc
    character(len=512) :: path
    integer(int64), parameter :: dims(1) = [30_int64], chunk(1) = [10_int64]
    ! rank 0: [1,6)   rank 1: [6,14) spans chunks 0 and 1   rank 2: [22,28)  (0-based, as in C)
    integer(int64), parameter :: start(3) = [1_int64, 6_int64, 22_int64], count(3) = [5_int64, 8_int64, 6_int64]
    integer, parameter :: opts(2) = [COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO]
    character(len=20), parameter :: optname(2) = [character(len=20) :: "MULTI_IO", "COLL_CHUNK_ATONCE_IO"]
    type(colldiag_file) :: f
    type(colldiag_layout) :: l
    type(colldiag_sel) :: s
    type(colldiag_xfer) :: x
    integer :: buf(8)
    character(len=256) :: line, all(3)
    character(len=17) :: cname, iname

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    if (nprocs /= 3) then
        if (rank == 0) write (0, '(a)') "rfc_modes needs exactly 3 ranks (mpirun -n 3)"
        call MPI_Finalize()
        stop 1
    end if
    path = "rfc_modes.bin"
    if (command_argument_count() > 0) call get_command_argument(1, path)

    call check(colldiag_file_open(MPI_COMM_WORLD, trim(path), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), f), "open")
    call check(colldiag_layout_chunked(dims, chunk, storage_size(buf) / 8, 0_int64, l), "layout")
    call check(colldiag_sel_create(dims, s), "sel")
    call check(colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, start(rank + 1:rank + 1), count(rank + 1:rank + 1)), &
               "hyperslab")
    do i = 1, int(count(rank + 1))
        buf(i) = int(start(rank + 1)) + i - 1
    end do

    do i = 1, 2
        call check(colldiag_xfer_create(x), "xfer")
        call check(colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE), "mode")
        call check(colldiag_set_dxpl_mpio_chunk_opt(x, opts(i)), "chunk opt")
        call check(colldiag_set_dxpl_mpio_chunk_opt_ratio(x, 40), "ratio")
        call check(colldiag_write(f, l, s, COLLDIAG_PACKED, buf, x), "write")
        call check(colldiag_get_mpio_actual_chunk_opt_mode(x, co), "chunk opt mode")
        call check(colldiag_get_mpio_actual_io_mode(x, io), "io mode")
        call check(colldiag_get_mpio_no_collective_cause(x, lc, gc), "causes")
        cname = colldiag_chunk_opt_name(co)
        iname = colldiag_io_mode_name(io)
        write (line, '(a20,a,i0,a,a17,a,a17,a,a,a,a)') optname(i), " rank ", rank, ": chunk optimization ", cname, " I/O mode ", &
            iname, " causes local 0x", hex(lc), " global 0x", hex(gc)
        ! print in rank order
        call MPI_Gather(line, 256, MPI_CHARACTER, all, 256, MPI_CHARACTER, 0, MPI_COMM_WORLD)
        if (rank == 0) then
            if (i == 1) write (output_unit, '(a)') "RFC example: 3 chunks; rank 0 in chunk 0, rank 1 in chunks 0 and 1, " // &
                "rank 2 in chunk 2; ratio 40"
            do r = 1, 3
                write (output_unit, '(a)') trim(all(r))
            end do
        end if
        call check(colldiag_report_print(f, x), "report")
        call colldiag_xfer_free(x)
    end do
    if (rank == 0) write (output_unit, '(a)') "=> rank 0 only touched the shared chunk 0 (collective), rank 1 touched chunk 0 " // &
        "(collective) and chunk 1 (independent): mixed, rank 2 only chunk 2 (independent)."
    call colldiag_sel_free(s)
    call colldiag_layout_free(l)
    call check(colldiag_file_close(f), "close")
    call MPI_Finalize()

contains

    subroutine check(rc, what)
        integer, intent(in) :: rc
        character(len=*), intent(in) :: what
        if (rc /= 0) then
            write (0, '(a,a,a)') what, " failed: ", colldiag_last_errmsg()
            call MPI_Abort(MPI_COMM_WORLD, 1)
        end if
    end subroutine

    ! C's %x: lowercase hexadecimal, no padding
    function hex(v) result(h)
        integer, intent(in) :: v
        character(len=:), allocatable :: h
        character(len=16) :: t
        integer :: k
        write (t, '(z0)') v
        h = trim(t)
        do k = 1, len(h)
            if (h(k:k) >= 'A' .and. h(k:k) <= 'F') h(k:k) = achar(iachar(h(k:k)) + 32)
        end do
    end function

end program rfc_modes
