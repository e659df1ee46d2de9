! The Fortran module (colldiag.f90) with 3 ranks: every scheme writes and reads a(10, 12) integers, each
! rank four columns of a (a band of whole chunks), and the test checks against its own arithmetic:
!  - the bytes in the file, read back with Fortran stream I/O at the offsets the dense chunked layout
!    gives in C order (dims [10, 12] in Fortran order are C's 12 x 10; chunks [5, 4] are C's 4 x 5);
!  - the values read back through colldiag;
!  - every rank's chunk optimisation, I/O mode and causes by SPEC's rules (each chunk has one rank);
!  - the chunk info (C order: coords(1) is the slowest grid dimension; 0-based);
!  - 0-based Fortran-order point coordinates; the integer-handle (mpi module) open;
!  - one rank passing a layout it never created: ERR_ARG there, ERR_PEER on the others, no hang;
!  - colldiag_write_multi / read_multi of three datasets (chunked int32, contiguous real64, a 7-element
!    int16 that rank 0 alone writes) in one link call: every element in the file at the offsets the
!    test computes, read back, each dataset's modes; arrays of different sizes: ERR_ARG, no hang;
!  - the reasons and the bytes at risk in words and numbers (a planned write whose gaps the test counts),
!    bytes off the node, the probed step latency and link rate.
!   mpirun -n 3 test_fortran FILE
program test_fortran
    use mpi_f08
    use colldiag
    use, intrinsic :: iso_fortran_env, only: int64, int32, int16, real64
    use, intrinsic :: iso_c_binding, only: c_ptr, c_loc
    implicit none
    integer, parameter :: NX = 10, NY = 12, CX = 5, CY = 4
    integer(int64), parameter :: dims(2) = [int(NX, int64), int(NY, int64)], cdims(2) = [int(CX, int64), int(CY, int64)]
    integer :: rank, nprocs, fails = 0, checks = 0, tf, tc, k, s, i, j, co, io, lc, gc, rc, want_co, want_io, known
    integer(int64) :: off_bytes
    character(len=512) :: path
    type(colldiag_file) :: f
    type(colldiag_layout) :: l, never
    type(colldiag_sel) :: sel, pts
    type(colldiag_xfer) :: x
    type(colldiag_chunk_info), pointer :: ci(:)
    integer(int32), allocatable :: a(:, :), b(:, :)
    integer, parameter :: schemes(8) = [COLLDIAG_MPIO_CHUNK_DEFAULT, COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, &
        COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO, COLLDIAG_MPIO_ALL_CHUNK_IND_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT, &
        COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, COLLDIAG_MPIO_CHUNK_AUTO]
    character(len=12), parameter :: sname(8) = [character(len=12) :: "default", "link", "multi", "atonce", "all-ind", &
        "multi-no-opt", "aggregate", "auto"]

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    if (nprocs /= 3 .or. command_argument_count() < 1) then
        if (rank == 0) write (0, '(a)') "usage: mpirun -n 3 test_fortran FILE"
        call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
    call get_command_argument(1, path)
    allocate(a(NX, 4), b(NX, 4))

    call expect(colldiag_file_open(MPI_COMM_WORLD, trim(path), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), f) == 0, "open (mpi_f08)")
    call expect(colldiag_layout_chunked(dims, cdims, 4, 0_int64, l) == 0, "layout")
    call expect(colldiag_sel_create(dims, sel) == 0, "sel")
    ! this rank's columns 4*rank+1 .. 4*rank+4 of a(10, 12): 0-based start (0, 4*rank), count (10, 4)
    call expect(colldiag_sel_select_hyperslab(sel, COLLDIAG_SELECT_SET, [0_int64, int(4 * rank, int64)], &
                                              [int(NX, int64), 4_int64]) == 0, "hyperslab")
    call expect(colldiag_sel_npoints(sel) == NX * 4, "npoints")

    do s = 1, size(schemes)
        do j = 1, 4
            do i = 1, NX
                a(i, j) = value(s, i, 4 * rank + j)
            end do
        end do
        call expect(colldiag_xfer_create(x) == 0, "xfer")
        call expect(colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE) == 0, "mode")
        call expect(colldiag_set_dxpl_mpio_chunk_opt(x, schemes(s)) == 0, "chunk opt")
        rc = colldiag_write(f, l, sel, COLLDIAG_PACKED, a, x)
        call expect(rc == 0, trim(sname(s)) // " write: " // colldiag_xfer_errmsg(x))
        ! (one call per statement: Fortran may skip the second operand of .and.)
        call expect(colldiag_get_mpio_actual_chunk_opt_mode(x, co) == 0, "chunk opt getter")
        call expect(colldiag_get_mpio_actual_io_mode(x, io) == 0, "io mode getter")
        call expect(colldiag_get_mpio_no_collective_cause(x, lc, gc) == 0, "causes getter")
        ! SPEC's rules for chunks that one rank each touches (2 per rank, num 0, ratio 60 -> threshold 1)
        select case (schemes(s))
        case (COLLDIAG_MPIO_CHUNK_DEFAULT, COLLDIAG_MPIO_CHUNK_ONE_IO)
            want_co = COLLDIAG_MPIO_LINK_CHUNK; want_io = COLLDIAG_MPIO_CHUNK_COLLECTIVE
        case (COLLDIAG_MPIO_CHUNK_MULTI_IO)
            want_co = COLLDIAG_MPIO_MULTI_CHUNK; want_io = COLLDIAG_MPIO_CHUNK_INDEPENDENT
        case (COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO)
            want_co = COLLDIAG_MPIO_COLL_CHUNK_ATONCE; want_io = COLLDIAG_MPIO_CHUNK_INDEPENDENT
        case (COLLDIAG_MPIO_ALL_CHUNK_IND_IO)
            want_co = COLLDIAG_MPIO_ALL_CHUNK_IND; want_io = COLLDIAG_MPIO_CHUNK_INDEPENDENT
        case (COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT) ! fewest chunks on any rank = 2 rounds: both chunks collective
            want_co = COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT; want_io = COLLDIAG_MPIO_CHUNK_COLLECTIVE
        case (COLLDIAG_MPIO_CHUNK_AGGREGATE_IO)
            want_co = COLLDIAG_MPIO_CHUNK_AGGREGATE; want_io = COLLDIAG_MPIO_CHUNK_COLLECTIVE
        case default ! AUTO: one of the four it chooses from
            want_co = co; want_io = io
            call expect(any(co == [COLLDIAG_MPIO_LINK_CHUNK, COLLDIAG_MPIO_MULTI_CHUNK, COLLDIAG_MPIO_CHUNK_AGGREGATE, &
                                   COLLDIAG_MPIO_ALL_CHUNK_IND]), "auto chose " // colldiag_chunk_opt_name(co))
        end select
        call expect(co == want_co .and. io == want_io .and. lc == 0 .and. gc == 0, trim(sname(s)) // ": " // &
                    colldiag_chunk_opt_name(co) // " " // colldiag_io_mode_name(io) // ", expected " // &
                    colldiag_chunk_opt_name(want_co) // " " // colldiag_io_mode_name(want_io))
        ! the scheme's reason in words: a set scheme says it was set; AUTO says something
        if (schemes(s) == COLLDIAG_MPIO_CHUNK_ONE_IO) call expect(index(colldiag_scheme_reason(x), "forced") > 0, &
                                                                   "link's reason: '" // colldiag_scheme_reason(x) // "'")
        if (schemes(s) == COLLDIAG_MPIO_CHUNK_AUTO) call expect(len(colldiag_scheme_reason(x)) > 0, "AUTO gives a reason")
        ! aggregation's exchange learns the nodes: this test runs on one host, so no byte leaves it
        if (schemes(s) == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO) then
            call expect(colldiag_get_bytes_off_node(x, off_bytes, known) == 0, "off-node getter")
            call expect(known == 1 .and. off_bytes == 0, "aggregation on one host: 0 bytes off the node, known")
        end if
        ! chunk info: this rank's two chunks, row-major grid index 2*rank + {0, 1}, C-order coords, 0-based
        call expect(colldiag_get_chunk_info(x, ci) == 0, "chunk info")
        call expect(size(ci) == 2, trim(sname(s)) // ": chunk count")
        do k = 1, min(size(ci), 2)
            call expect(ci(k)%index == 2 * rank + k - 1 .and. ci(k)%coords(1) == rank .and. ci(k)%coords(2) == k - 1 .and. &
                        ci(k)%nelem == CX * CY .and. ci(k)%addr == ci(k)%index * CX * CY * 4, &
                        trim(sname(s)) // ": chunk info values")
        end do
        call colldiag_xfer_free(x)
        call check_file(s)
        ! read back through colldiag with the same scheme
        b = -1
        call expect(colldiag_xfer_create(x) == 0, "xfer")
        call expect(colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE) == 0, "mode")
        call expect(colldiag_set_dxpl_mpio_chunk_opt(x, schemes(s)) == 0, "chunk opt")
        rc = colldiag_read(f, l, sel, COLLDIAG_PACKED, b, x)
        call expect(rc == 0 .and. all(b == a), trim(sname(s)) // " read: " // colldiag_xfer_errmsg(x))
        call colldiag_xfer_free(x)
    end do

    ! a read's plan (colldiag_plan_read) decides as the read does: AUTO's choice, then the read itself
    b = -1
    call expect(colldiag_xfer_create(x) == 0, "xfer")
    call expect(colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE) == 0, "mode")
    call expect(colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AUTO) == 0, "chunk opt")
    call expect(colldiag_plan_read(f, l, sel, COLLDIAG_PACKED, x) == 0, "plan_read: " // colldiag_xfer_errmsg(x))
    call expect(colldiag_get_mpio_actual_chunk_opt_mode(x, want_co) == 0, "planned chunk opt")
    rc = colldiag_read(f, l, sel, COLLDIAG_PACKED, b, x)
    call expect(rc == 0 .and. all(b == a), "AUTO read: " // colldiag_xfer_errmsg(x))
    call expect(colldiag_get_mpio_actual_chunk_opt_mode(x, co) == 0 .and. co == want_co, "colldiag_plan_read chose as the read did")
    call colldiag_xfer_free(x)

    ! points, 0-based, Fortran order: (i0, j0) = (2, 4*rank+1) is a(3, 4*rank+2); independent
    call expect(colldiag_sel_create(dims, pts) == 0, "points sel")
    call expect(colldiag_sel_select_elements(pts, COLLDIAG_SELECT_SET, reshape([2_int64, int(4 * rank + 1, int64)], [2, 1])) == 0, &
                "select elements")
    call expect(colldiag_xfer_create(x) == 0, "xfer")
    rc = colldiag_write(f, l, pts, COLLDIAG_PACKED, [777000 + rank], x)
    call expect(rc == 0, "point write: " // colldiag_xfer_errmsg(x))
    call colldiag_xfer_free(x)
    call colldiag_sel_free(pts)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
        do k = 0, 2
            call expect(file_value(3, 4 * k + 2) == 777000 + k, "point of rank " // char(48 + k) // " at a(3, 4r+2)")
        end do
    end if

    ! one rank's layout was never created: every rank returns, that one ERR_ARG, the others ERR_PEER
    call expect(colldiag_xfer_create(x) == 0, "xfer")
    call expect(colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE) == 0, "mode")
    if (rank == 1) then
        rc = colldiag_write(f, never, sel, COLLDIAG_PACKED, a, x)
        call expect(rc == COLLDIAG_ERR_ARG, "bad rank: " // colldiag_strerror(rc))
    else
        rc = colldiag_write(f, l, sel, COLLDIAG_PACKED, a, x)
        k = index(colldiag_xfer_errmsg(x), "rank 1")
        call expect(rc == COLLDIAG_ERR_PEER .and. k > 0, &
                    "healthy rank: " // colldiag_strerror(rc) // " " // colldiag_xfer_errmsg(x))
    end if
    call colldiag_xfer_free(x)
    call expect(colldiag_file_close(f) == 0, "close")

    ! the mpi module's integer handles
    call expect(colldiag_file_open(MPI_COMM_WORLD%MPI_VAL, trim(path), MPI_MODE_RDWR, f) == 0, "open (integer handle)")
    b = -1
    call expect(colldiag_xfer_create(x) == 0, "xfer")
    rc = colldiag_read(f, l, sel, COLLDIAG_PACKED, b, x)
    call expect(rc == 0 .and. b(3, 2) == 777000 + rank .and. b(1, 1) == value(size(schemes), 1, 4 * rank + 1), &
                "read after reopening with an integer communicator")
    call colldiag_xfer_free(x)
    call expect(colldiag_file_close(f) == 0, "close")

    call multi(trim(path) // ".multi")
    call risk(trim(path) // ".risk")

    call colldiag_sel_free(sel)
    call colldiag_layout_free(l)
    call MPI_Allreduce(fails, tf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Allreduce(checks, tc, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) write (*, '(a,i0,a,i0,a,i0,a)') "test_fortran P=", nprocs, ": ", tc - tf, " passed, ", tf, " failed"
    call MPI_Finalize()
    if (tf /= 0) stop 1

contains

    ! Three datasets in one call: a chunked int32 a(10, 12) at 0 (as above), a contiguous real64
    ! d(10, 12) at 480, an int16 e(7) at 1440 that only rank 0 writes. Each rank: columns 4r+1..4r+4.
    subroutine multi(mpath)
        character(len=*), intent(in) :: mpath
        type(colldiag_file) :: mf
        type(colldiag_layout) :: ls(3)
        type(colldiag_sel) :: fs(3), ms(3)
        type(colldiag_xfer) :: mx
        integer(int32), allocatable, target :: ma(:, :), ra(:, :)
        real(real64), allocatable, target :: md(:, :), rd(:, :)
        integer(int16), target :: me7(7), re7(7)
        type(c_ptr) :: bufs(3), rbufs(3)
        integer :: ii, jj, nd, bad, u, mrc
        integer(int64) :: off
        integer(int32) :: v4
        real(real64) :: v8
        integer(int16) :: v2
        allocate (ma(NX, 4), ra(NX, 4), md(NX, 4), rd(NX, 4))
        do jj = 1, 4
            do ii = 1, NX
                ma(ii, jj) = value(20, ii, 4 * rank + jj)
                md(ii, jj) = real(value(30, ii, 4 * rank + jj), real64) + 0.25_real64
            end do
        end do
        me7 = [(int(-1000 * ii, int16), ii = 1, 7)]
        call expect(colldiag_file_open(MPI_COMM_WORLD, mpath, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), mf) == 0, "multi: open")
        call expect(colldiag_layout_chunked(dims, cdims, 4, 0_int64, ls(1)) == 0, "multi: layout 0")
        call expect(colldiag_layout_contiguous(dims, 8, 480_int64, ls(2)) == 0, "multi: layout 1")
        call expect(colldiag_layout_contiguous([7_int64], 2, 1440_int64, ls(3)) == 0, "multi: layout 2")
        do k = 1, 2
            call expect(colldiag_sel_create(dims, fs(k)) == 0, "multi: sel")
            call expect(colldiag_sel_select_hyperslab(fs(k), COLLDIAG_SELECT_SET, [0_int64, int(4 * rank, int64)], &
                                                      [int(NX, int64), 4_int64]) == 0, "multi: hyperslab")
        end do
        call expect(colldiag_sel_create([7_int64], fs(3)) == 0, "multi: sel 2")
        if (rank /= 0) call expect(colldiag_sel_select_none(fs(3)) == 0, "multi: none")
        ms = COLLDIAG_PACKED
        bufs = [c_loc(ma), c_loc(md), c_loc(me7)]
        call expect(colldiag_xfer_create(mx) == 0, "multi: xfer")
        call expect(colldiag_set_dxpl_mpio(mx, COLLDIAG_MPIO_COLLECTIVE) == 0, "multi: mode")
        call expect(colldiag_set_dxpl_mpio_chunk_opt(mx, COLLDIAG_MPIO_CHUNK_ONE_IO) == 0, "multi: link")
        mrc = colldiag_write_multi(mf, ls, fs, ms, bufs, mx)
        call expect(mrc == 0, "write_multi: " // colldiag_xfer_errmsg(mx))
        call expect(colldiag_get_ndatasets(mx, nd) == 0, "ndatasets getter")
        call expect(nd == 3, "write_multi reports 3 datasets")
        call expect(colldiag_get_dataset_mpio(mx, 0, co, io, lc, gc) == 0, "dataset getter")
        call expect(co == COLLDIAG_MPIO_LINK_CHUNK .and. io == COLLDIAG_MPIO_CHUNK_COLLECTIVE .and. lc == 0 .and. gc == 0, &
                    "dataset 0: " // colldiag_chunk_opt_name(co) // " " // colldiag_io_mode_name(io))
        call expect(colldiag_get_dataset_mpio(mx, 1, co, io, lc, gc) == 0, "dataset getter")
        call expect(co == COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION .and. io == COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE, &
                    "dataset 1: " // colldiag_chunk_opt_name(co) // " " // colldiag_io_mode_name(io))
        call expect(colldiag_file_close(mf) == 0, "multi: close")
        call MPI_Barrier(MPI_COMM_WORLD)
        if (rank == 0) then ! every element at the offset this test computes
            bad = 0
            open (newunit=u, file=mpath, access='stream', form='unformatted', status='old', action='read')
            do jj = 1, NY
                do ii = 1, NX
                    off = int(((jj - 1) / CY) * (NX / CX) + (ii - 1) / CX, int64) * CX * CY * 4 + &
                          int((mod(jj - 1, CY) * CX + mod(ii - 1, CX)) * 4, int64)
                    read (u, pos=off + 1) v4
                    if (v4 /= value(20, ii, jj)) bad = bad + 1
                    read (u, pos=480 + int((jj - 1) * NX + ii - 1, int64) * 8 + 1) v8
                    if (transfer(v8, 0_int64) /= transfer(real(value(30, ii, jj), real64) + 0.25_real64, 0_int64)) bad = bad + 1
                end do
            end do
            do ii = 1, 7
                read (u, pos=1440 + (ii - 1) * 2 + 1) v2
                if (v2 /= -1000 * ii) bad = bad + 1
            end do
            close (u)
            call expect(bad == 0, "write_multi: elements wrong in the file")
        end if
        call MPI_Barrier(MPI_COMM_WORLD)
        ! read back in one call
        call expect(colldiag_file_open(MPI_COMM_WORLD, mpath, MPI_MODE_RDWR, mf) == 0, "multi: reopen")
        ra = -1
        rd = -1
        re7 = 0
        rbufs = [c_loc(ra), c_loc(rd), c_loc(re7)]
        mrc = colldiag_read_multi(mf, ls, fs, ms, rbufs, mx)
        call expect(mrc == 0, "read_multi: " // colldiag_xfer_errmsg(mx))
        call expect(all(ra == ma) .and. all(transfer(rd, 0_int64, NX * 4) == transfer(md, 0_int64, NX * 4)), "read_multi: values")
        if (rank == 0) call expect(all(re7 == me7), "read_multi: the int16 dataset")
        if (rank /= 0) call expect(all(re7 == 0), "read_multi: an empty selection leaves the buffer alone")
        ! arrays of different sizes on one rank: ERR_ARG there before the call; the others see the
        ! same sizes and must then fail too, so every rank passes the short array here
        mrc = colldiag_write_multi(mf, ls, fs(1:2), ms, bufs, mx)
        call expect(mrc == COLLDIAG_ERR_ARG, "arrays of different sizes: " // colldiag_strerror(mrc))
        call colldiag_xfer_free(mx)
        call expect(colldiag_file_close(mf) == 0, "multi: close")
        do k = 1, 3
            call colldiag_sel_free(fs(k))
            call colldiag_layout_free(ls(k))
        end do
        if (rank == 0) then
            open (newunit=u, file=mpath, status='old')
            close (u, status='delete')
        end if
    end subroutine

    integer function value(s, i, j)
        integer, intent(in) :: s, i, j
        value = 100000 * s + 1000 * j + i
    end function

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        checks = checks + 1
        if (.not. ok) then
            fails = fails + 1
            write (*, '(a,i0,a,a)') "rank ", rank, " FAIL ", what
        end if
    end subroutine

    ! a(i, j) from the file: C row j-1, column i-1 of the 12 x 10 dataset, in 4 x 5 chunks stored densely
    integer function file_value(i, j)
        integer, intent(in) :: i, j
        integer :: u, r0, c0
        integer(int64) :: off
        integer(int32) :: v
        r0 = j - 1
        c0 = i - 1
        off = int(((r0 / CY) * (NX / CX) + c0 / CX), int64) * CX * CY * 4 + int((mod(r0, CY) * CX + mod(c0, CX)) * 4, int64)
        open (newunit=u, file=trim(path), access='stream', form='unformatted', status='old', action='read')
        read (u, pos=off + 1) v
        close (u)
        file_value = v
    end function

    ! Bytes at risk, through the Fortran getters: on an empty file, a collective write of a contiguous
    ! int32 e(4*P) where rank r writes e(4r+1) alone reaches past the end of the file with gaps between
    ! the ranks' elements: HDF5's one collective MPI-IO write would fill them with whatever its buffer
    ! held. The gaps, by this test's arithmetic: the span from the first selected byte to the last
    ! (4*4*(P-1) + 4 bytes) less the 4*P bytes written. Also the group's probed step latency (positive,
    ! the same on every rank) and link rate (the same on every rank, 0 on one host).
    subroutine risk(rpath)
        character(len=*), intent(in) :: rpath
        type(colldiag_file) :: rf
        type(colldiag_layout) :: rl
        type(colldiag_sel) :: rs
        type(colldiag_xfer) :: rx
        integer(int64) :: bytes, want
        integer :: kinds, ierr
        real(real64) :: lat, rate, lo(2), hi(2)
        if (rank == 0) call MPI_File_delete(rpath, MPI_INFO_NULL, ierr) ! a file from an earlier run is not empty
        call MPI_Barrier(MPI_COMM_WORLD)
        call expect(colldiag_file_open(MPI_COMM_WORLD, rpath, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), rf) == 0, "risk: open")
        call expect(colldiag_layout_contiguous([int(4 * nprocs, int64)], 4, 0_int64, rl) == 0, "risk: layout")
        call expect(colldiag_sel_create([int(4 * nprocs, int64)], rs) == 0, "risk: sel")
        call expect(colldiag_sel_select_hyperslab(rs, COLLDIAG_SELECT_SET, [int(4 * rank, int64)], [1_int64]) == 0, &
                    "risk: hyperslab")
        call expect(colldiag_xfer_create(rx) == 0, "risk: xfer")
        call expect(colldiag_set_dxpl_mpio(rx, COLLDIAG_MPIO_COLLECTIVE) == 0, "risk: mode")
        call expect(colldiag_plan(rf, rl, rs, COLLDIAG_PACKED, rx) == 0, "risk: plan: " // colldiag_xfer_errmsg(rx))
        call expect(colldiag_get_bytes_at_risk(rx, bytes, kinds) == 0, "risk: getter")
        want = 4_int64 * 4 * (nprocs - 1) + 4 - 4_int64 * nprocs
        call expect(bytes == want .and. kinds == COLLDIAG_RISK_HOLES, "risk: bytes and kinds of the planned write")
        call expect(index(colldiag_risk_reason(rx), "hole") > 0, "risk: reason '" // colldiag_risk_reason(rx) // "'")
        call colldiag_xfer_free(rx)
        call expect(colldiag_file_get_step_latency(rf, lat) == 0, "step latency getter")
        call expect(colldiag_file_get_link_rate(rf, rate) == 0, "link rate getter")
        lo = [lat, rate]
        call MPI_Allreduce(lo, hi, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
        call MPI_Allreduce([lat, rate], lo, 2, MPI_DOUBLE_PRECISION, MPI_MIN, MPI_COMM_WORLD)
        call expect(lat > 0 .and. hi(1) - lo(1) <= 0, "step latency probed, alike on every rank") ! (-Wcompare-reals: no ==)
        call expect(hi(2) <= 0 .and. lo(2) >= 0, "link rate: not probed on one host (0 on every rank)")
        call expect(colldiag_file_close(rf) == 0, "risk: close")
        call colldiag_sel_free(rs)
        call colldiag_layout_free(rl)
    end subroutine

    ! every element of a(10, 12) in the file, on rank 0, after every rank's write
    subroutine check_file(s)
        integer, intent(in) :: s
        integer :: ii, jj, bad
        call MPI_Barrier(MPI_COMM_WORLD)
        if (rank == 0) then
            bad = 0
            do jj = 1, NY
                do ii = 1, NX
                    if (file_value(ii, jj) /= value(s, ii, jj)) bad = bad + 1
                end do
            end do
            call expect(bad == 0, trim(sname(s)) // ": elements wrong in the file")
        end if
        call MPI_Barrier(MPI_COMM_WORLD)
    end subroutine

end program test_fortran
